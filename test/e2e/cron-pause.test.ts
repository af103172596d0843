/**
 * Paused svc-cron processes (SIGSTOP / SIGCONT, the way a long GC pause or a frozen VM stops a process):
 * - alone: while paused nothing runs; after SIGCONT there is at most one late run, never a burst of catch-up runs;
 * - beside another process on Redis, paused for 2 × lock_ttl_ms: the other runs every tick meanwhile, and after the
 *   pause each tick still runs exactly once.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SvcClient } from '@svc/sdk';
import { startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';
import { byTick, memoryAdapter, recorder, redisAdapter, sleep, spawnCron, type CronRun } from './cron-support.js';

let engine: EngineProcess;
let client: SvcClient;
let runs: CronRun[];
const FN = `cron-e2e::pause-${randomUUID().slice(0, 8)}`;
const procs: Child[] = [];

beforeAll(async () => {
  engine = await startEngine();
  ({ client, runs } = await recorder(engine.url, FN));
});

afterAll(async () => {
  for (const p of procs) p.proc.kill('SIGCONT');
  await client?.shutdown();
  await Promise.all(procs.map((p) => p.stop()));
  await engine?.stop();
});

async function spawnReady(adapter: object): Promise<Child> {
  const child = spawnCron(engine.url, adapter);
  procs.push(child);
  await child.waitForOutput('svc-cron started');
  return child;
}

it('a paused process runs at most one late tick after it resumes, never a burst', async () => {
  const cron = await spawnReady(memoryAdapter);
  const trigger = client.registerTrigger({ type: 'cron', function_id: FN, config: { expression: '* * * * * *' } });
  const mine = () => runs.filter((r) => r.job_id === trigger.id);
  try {
    await waitFor(() => mine().length >= 2, 5000, 'runs before the pause');
    cron.proc.kill('SIGSTOP');
    await sleep(3500);
    const resumedAt = Date.now();
    cron.proc.kill('SIGCONT');
    await sleep(2500);
    const after = mine().filter((r) => r.receivedAt >= resumedAt);
    // Ticks that fell due during the pause: at most one of them runs (late), the others are skipped.
    expect(after.filter((r) => Date.parse(r.scheduled_time) < resumedAt - 50).length).toBeLessThanOrEqual(1);
    expect(after.length).toBeGreaterThanOrEqual(1); // and the schedule goes on
    expect(after.length).toBeLessThanOrEqual(4);
    expect([...byTick(mine()).values()].filter((r) => r.length > 1)).toEqual([]);
  } finally {
    trigger.unregister();
    await cron.stop();
  }
}, 20_000);

it('paused for 2 × lock_ttl_ms beside another process on Redis: every tick still runs exactly once', async () => {
  const adapter = redisAdapter();
  (adapter.config as Record<string, unknown>).lock_ttl_ms = 1500;
  const [a, b] = [await spawnReady(adapter), await spawnReady(adapter)];
  const trigger = client.registerTrigger({ type: 'cron', function_id: FN, config: { expression: '* * * * * *' } });
  await Promise.all([a, b].map((p) => p.waitForOutput('cron job scheduled')));
  const start = Date.now();
  await sleep(1000);
  a.proc.kill('SIGSTOP');
  await sleep(3000);
  a.proc.kill('SIGCONT');
  await sleep(1500);
  trigger.unregister();
  const mine = runs.filter((r) => r.job_id === trigger.id && r.receivedAt > start + 1000);
  const ticks = byTick(mine);
  expect([...ticks.values()].filter((r) => r.length > 1)).toEqual([]); // never twice
  const times = [...ticks.keys()].map((t) => Date.parse(t)).sort((x, y) => x - y);
  expect(times.length).toBeGreaterThanOrEqual(4);
  for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(1000); // and none lost
}, 25_000);
