/**
 * Wall-clock jumps under svc-cron, with libfaketime moving one svc-cron process's clock (realtime only, as an NTP step
 * does; timers keep the monotonic clock):
 * - +1 h: no burst of catch-up runs (at most one late run), then the schedule goes on at the new time;
 * - back to the real time: no tick runs twice (nothing runs until the clock reaches the next tick again).
 * Needs libfaketime (`apt-get install libfaketime`); skipped with that reason when the library is absent.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { SvcClient } from '@svc/sdk';
import { startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';
import { byTick, memoryAdapter, recorder, sleep, spawnCron, type CronRun } from './cron-support.js';

const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';
const HOUR = 3_600_000;
let engine: EngineProcess | undefined;
let cron: Child | undefined;
let client: SvcClient | undefined;

afterAll(async () => {
  await client?.shutdown();
  await cron?.stop();
  await engine?.stop();
});

describe.skipIf(!existsSync(LIBFAKETIME))('svc-cron under clock jumps (libfaketime)', () => {
  it('+1 h then back: no burst, no tick twice', async () => {
    const clockFile = join(mkdtempSync(join(tmpdir(), 'svc-clock-')), 'offset');
    writeFileSync(clockFile, '+0\n');
    engine = await startEngine();
    cron = spawnCron(engine.url, memoryAdapter, {
      LD_PRELOAD: LIBFAKETIME,
      FAKETIME_TIMESTAMP_FILE: clockFile,
      FAKETIME_NO_CACHE: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    });
    await cron.waitForOutput('svc-cron started');
    const fn = `cron-e2e::clock-${randomUUID().slice(0, 8)}`;
    let runs: CronRun[];
    ({ client, runs } = await recorder(engine.url, fn));
    const trigger = client.registerTrigger({ type: 'cron', function_id: fn, config: { expression: '* * * * * *' } });
    const mine = () => runs.filter((r) => r.job_id === trigger.id);
    await waitFor(() => mine().length >= 2, 5000, 'runs before the jump');

    writeFileSync(clockFile, '+1h\n');
    const jumpedAt = Date.now();
    await sleep(3000);
    const ahead = mine().filter((r) => r.receivedAt > jumpedAt);
    expect(ahead.length).toBeGreaterThanOrEqual(1); // the schedule goes on
    expect(ahead.length).toBeLessThanOrEqual(4); // not 3,600 catch-up runs
    expect(ahead.every((r) => Date.parse(r.scheduled_time) > jumpedAt + HOUR - 2000)).toBe(true);

    writeFileSync(clockFile, '+0\n');
    const backAt = Date.now();
    await sleep(2500);
    expect(mine().filter((r) => r.receivedAt > backAt + 300)).toEqual([]); // waits for the next tick: +1 h away
    expect([...byTick(mine()).values()].filter((r) => r.length > 1)).toEqual([]);
    const list = await client.trigger<{ jobs: Array<{ id: string; next_run: string }> }>({
      function_id: 'cron::list',
      payload: {},
    });
    const nextRun = Date.parse(list.jobs.find((j) => j.id === trigger.id)!.next_run);
    expect(nextRun - Date.now()).toBeGreaterThan(HOUR - 10_000);
    trigger.unregister();
  }, 25_000);
});
