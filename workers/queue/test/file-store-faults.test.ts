/**
 * Disk errors during enqueue, with a real full disk: the builtin file store on a tiny tmpfs. Every enqueue is either
 * acknowledged and still there after a restart, or rejected to the caller; after the first failed write no enqueue is
 * acknowledged again (the file's state is unknown until it is reopened).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinQueueAdapter } from '../src/adapters/builtin.js';
import { waitFor } from './backends.js';

const mountDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-queue-full-'));
let mounted = false;

beforeAll(() => {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=512k', 'tmpfs', mountDir], { stdio: 'ignore' });
    mounted = true;
  } catch {
    mounted = false;
  }
});

afterAll(() => {
  if (mounted) execFileSync('umount', ['-l', mountDir], { stdio: 'ignore' });
  fs.rmSync(mountDir, { recursive: true, force: true });
});

const open = () =>
  new BuiltinQueueAdapter({
    max_attempts: 3,
    backoff_ms: 50,
    concurrency: 10,
    poll_interval_ms: 100,
    mode: 'concurrent',
    store_method: 'file_based',
    file_path: path.join(mountDir, 'q'),
    save_interval_ms: 60_000,
  });

describe('builtin file store on a full disk', () => {
  it('acks only what is durable, and refuses every enqueue after the first failed write', async (ctx) => {
    if (!mounted) ctx.skip('needs a tmpfs mount (root); CI runs as root');
    const a = open();
    await a.start();
    const blob = 'x'.repeat(4096);
    const outcome: ('ok' | 'refused')[] = [];
    const acked: string[] = [];
    let code = '';
    for (let i = 0; i < 400; i++) {
      try {
        acked.push(await a.enqueue('full', { id: `j${i}`, function_id: 'f', data: { blob } }));
        outcome.push('ok');
      } catch (err) {
        outcome.push('refused');
        code ||= (err as { code?: string }).code ?? '';
      }
    }
    const firstRefused = outcome.indexOf('refused');
    expect(firstRefused).toBeGreaterThan(0); // some went through, then the disk filled
    expect(outcome.slice(firstRefused).every((o) => o === 'refused')).toBe(true);
    expect(code).toBe('queue_store_failed');
    await a.close(100);

    const b = open();
    await b.start();
    const seen: string[] = [];
    await b.consume('full', async (job) => void seen.push(job.id));
    await waitFor(() => seen.length >= acked.length, 10_000, 'acknowledged jobs after restart');
    expect(acked.filter((id) => !seen.includes(id))).toEqual([]);
    await b.close(100);
  });

  it('refuses a damaged store file with a clear error instead of trusting it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-queue-corrupt-'));
    const make = () =>
      new BuiltinQueueAdapter({
        max_attempts: 3,
        backoff_ms: 50,
        concurrency: 10,
        poll_interval_ms: 100,
        mode: 'concurrent',
        store_method: 'file_based',
        file_path: dir,
        save_interval_ms: 60_000,
      });
    const a = make();
    await a.start();
    for (let i = 0; i < 300; i++) await a.enqueue('q', { function_id: 'f', data: { pad: 'y'.repeat(200), i } });
    await a.close(100);
    const file = path.join(dir, 'queue.db');
    const size = fs.statSync(file).size;
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.alloc(size - 8192, 0xa5), 0, size - 8192, 4096); // every page after the first
    fs.closeSync(fd);
    await expect(make().start()).rejects.toMatchObject({
      code: 'queue_store_failed',
      message: expect.stringMatching(/is damaged/),
    });
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
