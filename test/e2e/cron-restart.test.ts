/**
 * The engine restarts under a running svc-cron and a worker with a cron trigger: both reconnect, the worker replays
 * its trigger (same id), svc-cron gets the binding again, and the job runs again under the same job id.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import type { SvcClient } from '@svc/sdk';
import { startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';
import { memoryAdapter, recorder, spawnCron } from './cron-support.js';

let engine: EngineProcess | undefined;
let cron: Child | undefined;
let client: SvcClient | undefined;
afterAll(async () => {
  await client?.shutdown();
  await cron?.stop();
  await engine?.stop();
});

it('jobs run again after an engine restart, under the same job id', async () => {
  engine = await startEngine();
  cron = spawnCron(engine.url, memoryAdapter);
  await cron.waitForOutput('svc-cron started');
  const fn = `cron-e2e::restart-${randomUUID().slice(0, 8)}`;
  const rec = await recorder(engine.url, fn);
  client = rec.client;
  const trigger = client.registerTrigger({ type: 'cron', function_id: fn, config: { expression: '* * * * * *' } });
  await waitFor(() => rec.runs.some((r) => r.job_id === trigger.id), 4000, 'a run before the restart');

  engine = await engine.restart();
  const restartedAt = Date.now();
  await waitFor(
    () => rec.runs.filter((r) => r.job_id === trigger.id && r.receivedAt > restartedAt).length >= 2,
    15000,
    'runs after the restart',
  );
  const after = rec.runs.filter((r) => r.receivedAt > restartedAt);
  expect(new Set(after.map((r) => r.scheduled_time)).size).toBe(after.length);
}, 40_000);
