/**
 * svc-cron with the Redis lock (one run per tick, a dead lock holder, Redis down), real processes throughout:
 * - three svc-cron processes, one job every second: each tick runs exactly once, all of them run;
 * - `kill -9` of the process that fired the latest tick: at most one tick is lost, later ticks run elsewhere;
 * - Redis down: nothing runs, the worker says so once; runs resume within about a tick after Redis is back.
 * Needs Redis on 127.0.0.1:6379 for the first part (scripts/services.sh); the outage part runs its own
 * redis-server on a free port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SvcClient } from '@svc/sdk';
import { freePort, startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';
import { byTick, recorder, redisAdapter, sleep, spawnCron, workerIdOf, type CronRun } from './cron-support.js';

let engine: EngineProcess;
let client: SvcClient;
let runs: CronRun[];
const FN = `cron-e2e::distributed-${randomUUID().slice(0, 8)}`;
const crons: Child[] = [];

beforeAll(async () => {
  engine = await startEngine();
  ({ client, runs } = await recorder(engine.url, FN));
});

afterAll(async () => {
  await client?.shutdown();
  await Promise.all(crons.map((c) => c.stop()));
  await engine?.stop();
});

/** Ticks (ms) that ran, sorted. */
const tickTimes = (list: CronRun[]) => [...byTick(list).keys()].map((t) => Date.parse(t)).sort((a, b) => a - b);

describe('svc-cron on Redis locks', () => {
  it('three processes: each tick runs exactly once; killing the holder loses at most one tick', async () => {
    const adapter = redisAdapter();
    const procs = [0, 1, 2].map(() => spawnCron(engine.url, adapter));
    crons.push(...procs);
    const ids = await Promise.all(procs.map(workerIdOf));
    const trigger = client.registerTrigger({ type: 'cron', function_id: FN, config: { expression: '* * * * * *' } });
    try {
      await Promise.all(procs.map((p) => p.waitForOutput('cron job scheduled')));

      // Phase 1: ~5 s with three processes.
      const phase1Start = Date.now();
      await sleep(5000);
      const phase1 = runs.filter((r) => r.job_id === trigger.id && r.receivedAt >= phase1Start);
      const ticks1 = byTick(phase1);
      expect([...ticks1.values()].filter((r) => r.length > 1)).toEqual([]); // 0 ticks with more than one run
      expect(ticks1.size).toBeGreaterThanOrEqual(4);
      const times1 = tickTimes(phase1);
      const gaps = times1.slice(1).map((t, i) => t - times1[i]!);
      // Consecutive ticks; one collapsed tick is tolerated (all three processes stalled > 1 s on a loaded machine).
      expect(gaps.filter((g) => g !== 1000).length).toBeLessThanOrEqual(1);
      expect(new Set(phase1.map((r) => r.caller)).size).toBeGreaterThanOrEqual(1);
      expect(phase1.every((r) => r.caller !== undefined && ids.includes(r.caller))).toBe(true);

      // Phase 2: kill -9 the process that fired the latest tick.
      const holder = runs.filter((r) => r.job_id === trigger.id).at(-1)!;
      const victim = procs[ids.indexOf(holder.caller!)]!;
      await victim.kill();
      const killedAt = Date.now();
      await sleep(3500);
      const all = runs.filter((r) => r.job_id === trigger.id);
      const allTicks = byTick(all);
      expect([...allTicks.values()].filter((r) => r.length > 1)).toEqual([]);
      const after = tickTimes(all.filter((r) => r.receivedAt > killedAt));
      expect(after.length).toBeGreaterThanOrEqual(2); // later ticks run on the survivors
      const lastBefore = Date.parse(holder.scheduled_time);
      const expected = Math.round((after.at(-1)! - lastBefore) / 1000); // ticks due since the holder's last one
      expect(expected - after.length).toBeLessThanOrEqual(1); // at most one tick lost
      expect(all.filter((r) => r.receivedAt > killedAt + 100).every((r) => r.caller !== holder.caller)).toBe(true);
    } finally {
      trigger.unregister();
      // Every svc-cron process gets every binding: stop these before the next test brings its own.
      await Promise.all(procs.map((p) => p.stop()));
    }
  }, 30_000);

  it('Redis down: nothing runs and the worker says so once; runs resume when it is back', async () => {
    const port = await freePort();
    let redis = startRedis(port);
    try {
      await sleep(300);
      const cron = spawnCron(engine.url, redisAdapter(`redis://127.0.0.1:${port}`));
      crons.push(cron);
      await cron.waitForOutput('svc-cron started');
      const trigger = client.registerTrigger({ type: 'cron', function_id: FN, config: { expression: '* * * * * *' } });
      const mine = () => runs.filter((r) => r.job_id === trigger.id);
      await waitFor(() => mine().length >= 1, 4000, 'a first run with Redis up');

      redis.kill('SIGKILL');
      const downAt = Date.now();
      await sleep(3000);
      expect(mine().filter((r) => r.receivedAt > downAt + 500)).toEqual([]); // fail closed
      expect(countMatches(cron.logs(), 'cron lock store unavailable')).toBe(1); // loudly, once per outage
      const status = await client.trigger<{ lock: { available: boolean; outages: number; skipped_ticks: number } }>({
        function_id: 'cron::list',
        payload: {},
      });
      expect(status.lock).toMatchObject({ available: false, outages: 1 });
      expect(status.lock.skipped_ticks).toBeGreaterThanOrEqual(2);

      redis = startRedis(port);
      const upAt = Date.now();
      await waitFor(() => mine().some((r) => r.receivedAt > upAt), 3000, 'a run after Redis came back');
      const firstAfter = mine().find((r) => r.receivedAt > upAt)!;
      expect(firstAfter.receivedAt - upAt).toBeLessThan(2500);
      await cron.waitForOutput('cron lock store is back', 2000);
      trigger.unregister();
    } finally {
      redis.kill('SIGKILL');
    }
  }, 30_000);
});

function startRedis(port: number): ChildProcess {
  const proc = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  proc.on('error', () => undefined);
  return proc;
}

function countMatches(text: string, needle: string): number {
  return text.split(needle).length - 1;
}
