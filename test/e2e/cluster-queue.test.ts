/**
 * Durable work in a cluster: svc-queue processes on Redis (one connected to engine A, one to engine C, each
 * given both URLs), the job's function on engine B, a producer connected to C then A. `kill -9` of engine C
 * mid-run: every enqueue that was acknowledged runs (lost acked jobs = 0); the producer and C's svc-queue fail
 * over to A and the work goes on.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TriggerAction, type SvcClient } from '@svc/sdk';
import { waitFor, type Child, type EngineProcess } from '../harness.js';
import { NATS_URL, natsPort, ourWorker, portOpen, startCluster, waitListedEverywhere } from './cluster-support.js';
import { REDIS_URL, sleep, startedQueue } from './queue-support.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

const natsUp = await portOpen(natsPort(NATS_URL));
const redisUp = await portOpen(Number(new URL(REDIS_URL).port || 6379));
if (!natsUp || !redisUp) console.warn('cluster queue test skipped: needs nats-server (4222) and Redis (6379)');

describe.skipIf(!natsUp || !redisUp)('svc-queue on Redis across a cluster, one engine killed', () => {
  const prefix = `svccq${randomUUID().slice(0, 8)}`;
  const queue = `cluster-${prefix}`;
  let engines: EngineProcess[] = [];
  const children: Child[] = [];
  const clients: SvcClient[] = [];
  const runs: string[] = [];

  beforeAll(async () => {
    engines = await startCluster(3);
    const [a, b, c] = engines.map((e) => e.url) as [string, string, string];
    const config = {
      adapter: {
        class: 'modules::queue::KvserverAdapter',
        config: { kvserver_url: REDIS_URL, prefix, backoff_ms: 100, lock_duration_ms: 1000, stalled_interval_ms: 500 },
      },
    };
    children.push(await startedQueue(`${a},${c}`, config), await startedQueue(`${c},${a}`, config));
    const consumer = ourWorker(b, 'consumer-b');
    consumer.registerFunction('cq::job', async (p: { seq: string }) => {
      await sleep(5);
      runs.push(p.seq);
    });
    clients.push(consumer);
    await waitListedEverywhere([a, c], 'cq::job');
    await waitListedEverywhere([a, b, c], 'engine::queue::enqueue');
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.shutdown()));
    await Promise.all(children.map((c) => c.stop()));
    await Promise.all(engines.map((e) => (e.exited ? Promise.resolve() : e.stop())));
    const r = new Redis(REDIS_URL);
    const keys = await r.keys(`${prefix}:*`);
    if (keys.length) await r.del(...keys);
    r.disconnect();
  });

  it('loses no acknowledged job when an engine is killed mid-run', async () => {
    const [a, , c] = engines as [EngineProcess, EngineProcess, EngineProcess];
    const producer = ourWorker([c.url, a.url], 'producer');
    clients.push(producer);
    await producer.ready();
    const acked: string[] = [];
    const send = (from: number, to: number) =>
      Promise.all(
        Array.from({ length: to - from }, async (_, i) => {
          const seq = `${from + i}`;
          // a producer retries an enqueue that failed (its engine died under it); only acknowledged ones count
          for (let attempt = 0; attempt < 20; attempt++) {
            try {
              await producer.trigger({
                function_id: 'cq::job',
                payload: { seq },
                action: TriggerAction.Enqueue({ queue }),
                timeoutMs: 5000,
              });
              acked.push(seq);
              return;
            } catch {
              await sleep(200);
            }
          }
        }),
      );
    await send(0, 200);
    await waitFor(() => runs.length >= 50, 20_000, 'work to start');
    await c.kill(); // SIGKILL: the engine, with enqueues and jobs in flight
    await send(200, 300);
    await waitFor(() => acked.every((s) => runs.includes(s)), 40_000, 'every acknowledged job to run');
    const lost = acked.filter((s) => !runs.includes(s));
    console.info(
      `acked ${acked.length}, ran ${new Set(runs).size} distinct (${runs.length} runs), lost ${lost.length}`,
    );
    expect(lost).toEqual([]);
    expect(acked.length).toBeGreaterThanOrEqual(295);
  });
});
