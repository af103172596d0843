/**
 * Crash durability of the file store (workers/state/README.md, "Stores and durability"): 1,000 concurrent `state::set`
 * calls, `kill -9` of svc-state while some are still in flight, restart on the same file: every acknowledged write is
 * there with its value, and the file passes SQLite's integrity check.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SvcClient } from '@svc/sdk';
import { startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';
import { fileAdapter, sdkClient, startState } from './state-helpers.js';

let engine: EngineProcess;
let client: SvcClient;
let dir: string;
const children: Child[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-state-crash-'));
  engine = await startEngine();
  client = await sdkClient(engine.url);
});

afterAll(async () => {
  await client?.shutdown();
  await Promise.all([...children.map((child) => child.stop()), engine?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

it('keeps every acknowledged write across kill -9', async () => {
  const config = { adapter: fileAdapter(join(dir, 'state.db')) };
  const first = await startState(engine.url, config);
  children.push(first);
  const acked = new Map<string, number>();
  let failed = 0;
  const writes = Array.from({ length: 1000 }, (_, i) =>
    client
      .trigger({
        function_id: 'state::set',
        payload: { scope: 'crash', key: `k${i}`, value: { seq: i } },
        timeoutMs: 10_000,
      })
      .then(
        () => void acked.set(`k${i}`, i),
        () => void failed++,
      ),
  );
  await waitFor(() => acked.size >= 400, 15_000, '400 acknowledged writes');
  await first.kill(); // SIGKILL, with writes still in flight
  await Promise.all(writes);
  console.log(`crash test: ${acked.size} acknowledged, ${failed} failed when svc-state was killed`);
  expect(acked.size + failed).toBe(1000);
  expect(acked.size).toBeGreaterThanOrEqual(400);

  const second = await startState(engine.url, config);
  children.push(second);
  const values = (await client.trigger({ function_id: 'state::list', payload: { scope: 'crash' } })) as {
    seq: number;
  }[];
  const stored = new Set(values.map((v) => v.seq));
  const lost = [...acked.values()].filter((seq) => !stored.has(seq));
  expect(lost).toEqual([]);
  for (const key of ['k0', [...acked.keys()].at(-1) as string]) {
    expect(await client.trigger({ function_id: 'state::get', payload: { scope: 'crash', key } })).toEqual({
      seq: acked.get(key),
    });
  }
  expect(await second.stop()).toBe(0); // SIGTERM: a clean exit, the WAL checkpointed
  const db = new Database(join(dir, 'state.db'), { readonly: true });
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  } finally {
    db.close();
  }
});
