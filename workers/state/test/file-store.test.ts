/** What only the file store does: one process per file, a directory as file_path, and checkpoints on close. */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { FileAdapter } from '../src/adapters/file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-state-file-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('refuses a second store on the same file with store_open_failed', async () => {
  const first = new FileAdapter({ filePath: join(dir, 'state.db'), saveIntervalMs: 1000 });
  await first.start();
  const second = new FileAdapter({ filePath: join(dir, 'state.db'), saveIntervalMs: 1000 });
  await expect(second.start()).rejects.toMatchObject({ code: 'store_open_failed' });
  await first.set('s', 'k', 1);
  await first.close();
  await second.start();
  expect(await second.get('s', 'k')).toBe(1);
  await second.close();
});

it('puts state.sqlite inside a directory given as file_path, and leaves no WAL behind after close', async () => {
  const store = new FileAdapter({ filePath: dir, saveIntervalMs: 1000 });
  await store.start();
  await store.set('s', 'k', { v: 1 });
  await store.close();
  expect(statSync(join(dir, 'state.sqlite')).size).toBeGreaterThan(0);
  const wal = join(dir, 'state.sqlite-wal');
  expect(!existsSync(wal) || statSync(wal).size === 0).toBe(true);
});

it('refuses to open a damaged file instead of serving from it', async () => {
  const path = join(dir, 'state.db');
  const store = new FileAdapter({ filePath: path, saveIntervalMs: 1000 });
  await store.start();
  for (let i = 0; i < 200; i++) await store.set('s', `k${i}`, { filler: 'x'.repeat(200), i });
  await store.close();
  const bytes = readFileSync(path);
  bytes.fill(0x5a, 4096 + 100, 4096 * 3); // scribble over the second and third pages
  writeFileSync(path, bytes);
  const reopened = new FileAdapter({ filePath: path, saveIntervalMs: 1000 });
  await expect(reopened.start()).rejects.toMatchObject({ code: 'store_open_failed' });
});
