/**
 * Disk faults: fsync errors injected into svc-state (libfiu's `fiu-run`, faults switched on with `fiu-ctrl` once it is
 * up). Every write is either acknowledged and present after a restart, or answered with an error; after the first
 * failed fsync the store acknowledges nothing more; the process stays up. Needs `fiu-run` / `fiu-ctrl` (Debian package
 * fiu-utils); skipped with that reason when they are missing.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SvcClient } from '@svc/sdk';
import { ROOT, startEngine, waitFor, waitForFunction, type EngineProcess } from '../harness.js';
import { fileAdapter, failure, hasCode, sdkClient, startState, STATE_MAIN } from './state-helpers.js';

const haveFiu = ['fiu-run', 'fiu-ctrl'].every((tool) => {
  try {
    execFileSync('which', [tool], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
});

let engine: EngineProcess;
let client: SvcClient;
let dir: string;
let faulty: ChildProcess | undefined;

describe.skipIf(!haveFiu)('svc-state under injected fsync errors', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-state-fiu-'));
    engine = await startEngine();
    client = await sdkClient(engine.url);
  });

  afterAll(async () => {
    if (faulty && faulty.exitCode === null) faulty.kill('SIGKILL');
    await client?.shutdown();
    await engine?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('acknowledges only durable writes, refuses the rest, and keeps running', async () => {
    const config = { adapter: fileAdapter(join(dir, 'state.db')) };
    faulty = spawn('fiu-run', ['-x', process.execPath, join(ROOT, STATE_MAIN)], {
      cwd: ROOT,
      env: { ...process.env, SVC_URL: engine.url, SVC_MODULE_CONFIG: JSON.stringify(config), SVC_LOG_LEVEL: 'error' },
      stdio: 'ignore',
    });
    await waitForFunction(engine.url, 'state::set', 15_000);
    const set = (i: number) =>
      client.trigger({ function_id: 'state::set', payload: { scope: 'fiu', key: `k${i}`, value: i } });
    const acked = new Set<number>();
    for (let i = 0; i < 50; i++) await set(i).then(() => acked.add(i));

    execFileSync('fiu-ctrl', ['-c', 'enable_random name=posix/io/sync/*,probability=0.1', String(faulty.pid)]);
    const errors: { code: string; message: string }[] = [];
    let failedBatches = 0;
    // Batches until an fsync has failed (each fails with probability 0.1, so 30 fixed batches all passed in about
    // one run in 25), then five more that must all be refused.
    for (let batch = 0; batch < 300 && failedBatches < 6; batch++) {
      const ids = Array.from({ length: 10 }, (_, j) => 50 + batch * 10 + j);
      const before = errors.length;
      await Promise.all(
        ids.map((i) =>
          failure(set(i)).then(
            (err) => errors.push(err),
            () => acked.add(i),
          ),
        ),
      );
      const failedHere = errors.length - before;
      // Once an fsync failed, nothing more is acknowledged: every later batch is refused whole.
      if (failedBatches > 0) expect(failedHere).toBe(10);
      if (failedHere > 0) failedBatches++;
    }
    expect(errors.length).toBeGreaterThan(0); // the faults really happened
    expect(errors.every((err) => hasCode(err, 'SET_ERROR'))).toBe(true);
    expect(errors.at(-1)?.message).toMatch(/store_failed/);
    expect(faulty.exitCode).toBeNull();

    faulty.kill('SIGKILL');
    await waitFor(() => faulty?.exitCode !== null || faulty?.signalCode !== null, 5000, 'the faulty svc-state to exit');
    const healthy = await startState(engine.url, config);
    try {
      const values = (await client.trigger({ function_id: 'state::list', payload: { scope: 'fiu' } })) as number[];
      const stored = new Set(values);
      expect([...acked].filter((i) => !stored.has(i))).toEqual([]);
      expect(acked.size).toBeGreaterThanOrEqual(50);
    } finally {
      await healthy.stop();
    }
  });
});
