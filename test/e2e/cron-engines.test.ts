/**
 * Exactly one run per tick across engines: two engines, each with its own svc-cron process on the same Redis, and the
 * same cron binding (same trigger id, as a worker that reconnects to another engine keeps its trigger ids) registered
 * on both through a raw protocol client. Each tick runs once in total.
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { afterAll, expect, it } from 'vitest';
import { startEngine, type Child, type EngineProcess } from '../harness.js';
import { redisAdapter, sleep, spawnCron } from './cron-support.js';

const cleanup: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

interface Run {
  engine: number;
  scheduled_time: string;
}

/** A raw worker: provides `functionId`, binds it to a cron trigger with a fixed id, records each run. */
function rawWorker(url: string, index: number, functionId: string, triggerId: string, runs: Run[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    cleanup.push(async () => ws.close());
    ws.on('error', reject);
    ws.on('open', () => {
      ws.send(JSON.stringify({ type: 'registerfunction', id: functionId }));
      ws.send(
        JSON.stringify({
          type: 'registertrigger',
          id: triggerId,
          trigger_type: 'cron',
          function_id: functionId,
          config: { expression: '* * * * * *' },
        }),
      );
      resolve();
    });
    ws.on('message', (raw) => {
      const msg = JSON.parse((raw as Buffer).toString()) as { type: string; invocation_id?: string; data?: Run };
      if (msg.type !== 'invokefunction') return;
      runs.push({ engine: index, scheduled_time: String(msg.data?.scheduled_time) });
      if (msg.invocation_id) {
        ws.send(
          JSON.stringify({ type: 'invocationresult', invocation_id: msg.invocation_id, function_id: functionId }),
        );
      }
    });
  });
}

it('two engines with a svc-cron each on one Redis run each tick of the same binding once in total', async () => {
  const engines: EngineProcess[] = await Promise.all([startEngine(), startEngine()]);
  for (const engine of engines) cleanup.push(() => engine.stop());
  const adapter = redisAdapter();
  const crons: Child[] = engines.map((engine) => spawnCron(engine.url, adapter));
  for (const cron of crons) cleanup.push(() => cron.stop());
  await Promise.all(crons.map((cron) => cron.waitForOutput('svc-cron started')));

  const runs: Run[] = [];
  const functionId = `cron-e2e::engines-${randomUUID().slice(0, 8)}`;
  const triggerId = randomUUID();
  await Promise.all(engines.map((engine, i) => rawWorker(engine.url, i, functionId, triggerId, runs)));
  await Promise.all(crons.map((cron) => cron.waitForOutput('cron job scheduled')));
  await sleep(5000);

  const perTick = new Map<string, number>();
  for (const run of runs) perTick.set(run.scheduled_time, (perTick.get(run.scheduled_time) ?? 0) + 1);
  expect([...perTick.values()].filter((n) => n > 1)).toEqual([]); // never twice
  expect(perTick.size).toBeGreaterThanOrEqual(4);
}, 30_000);
