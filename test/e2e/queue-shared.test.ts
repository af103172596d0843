/**
 * Several svc-queue processes on one shared backend (Redis through BullMQ, RabbitMQ) share the work, and when one
 * of them is killed with jobs in flight the other finishes everything: checker lost = 0, unexpected = 0.
 */
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TriggerAction, type SvcClient } from '@svc/sdk';
import { startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';
import { brokerNames, registryName } from '../../workers/queue/src/adapters/rabbitmq-topology.js';
import { checkDeliveries } from '../../workers/queue/test/checker.js';
import { client, REDIS_URL, sleep, startedQueue } from './queue-support.js';

const AMQP_URL = process.env.SVC_TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

const shared = [
  {
    name: 'Redis (KvserverAdapter)',
    port: 6379,
    adapter: (prefix: string) => ({
      class: 'modules::queue::KvserverAdapter',
      config: { kvserver_url: REDIS_URL, prefix, backoff_ms: 100, lock_duration_ms: 1000, stalled_interval_ms: 500 },
    }),
    cleanup: async (prefix: string) => {
      const r = new Redis(REDIS_URL);
      const keys = await r.keys(`${prefix}:*`);
      if (keys.length) await r.del(...keys);
      r.disconnect();
    },
  },
  {
    name: 'RabbitMQ (BrokerAdapter)',
    port: 5672,
    adapter: (prefix: string) => ({
      class: 'modules::queue::BrokerAdapter',
      config: { amqp_url: AMQP_URL, prefix, backoff_ms: 100 },
    }),
    cleanup: async (prefix: string, queue: string) => {
      const n = brokerNames(prefix, queue, { maxAttempts: 3, backoffMs: 100, concurrency: 10, mode: 'concurrent' });
      const conn = await amqp.connect(AMQP_URL);
      const ch = await conn.createChannel();
      for (const q of [n.main, n.dead, ...n.retries.map((r) => r.name), registryName(prefix)]) await ch.deleteQueue(q);
      await conn.close();
    },
  },
];

let engine: EngineProcess;
let worker: SvcClient;
let caller: SvcClient;
const runs: { seq: string; by: string }[] = [];

beforeAll(async () => {
  engine = await startEngine();
  worker = client(engine.url, 'queue-shared-worker');
  worker.registerFunction('qshared::job', async (p: { seq: string; _caller_worker_id?: string }) => {
    await sleep(5);
    runs.push({ seq: p.seq, by: p._caller_worker_id ?? '' });
  });
  caller = client(engine.url, 'queue-shared-producer');
  await Promise.all([worker.ready(), caller.ready()]);
});

afterAll(async () => {
  await caller?.shutdown();
  await worker?.shutdown();
  await engine?.stop();
});

describe.each(shared)('svc-queue on $name', (backend) => {
  it('two processes share the work; killing one mid-run loses nothing', async (ctx) => {
    if (!(await portOpen(backend.port))) ctx.skip(`${backend.name} is not reachable (scripts/services.sh starts it)`);
    const prefix = `svcq${randomUUID().slice(0, 8)}`;
    const queue = `shared-${prefix}`;
    const config = { adapter: backend.adapter(prefix) };
    const a = await startedQueue(engine.url, config);
    const b = await startedQueue(engine.url, config);
    const children: Child[] = [a, b];
    try {
      runs.length = 0;
      const acked: string[] = [];
      // A producer retries an enqueue that failed (e.g. routed to the process just killed); only successes count.
      const send = (from: number, to: number) =>
        Promise.all(
          Array.from({ length: to - from }, async (_, i) => {
            const seq = `${from + i}`;
            for (let attempt = 0; attempt < 5; attempt++) {
              try {
                await caller.trigger({
                  function_id: 'qshared::job',
                  payload: { seq },
                  action: TriggerAction.Enqueue({ queue }),
                });
                acked.push(seq);
                return;
              } catch {
                await sleep(100);
              }
            }
          }),
        );
      let sent = 0;
      const more = async (n: number): Promise<void> => {
        const from = sent;
        sent += n;
        await send(from, sent);
      };
      const byBoth = (): boolean => new Set(runs.map((x) => x.by)).size === 2;
      const allRan = (): boolean => {
        const ran = new Set(runs.map((x) => x.seq));
        return acked.every((s) => ran.has(s));
      };
      // Work keeps coming until both processes are running jobs (on a loaded machine one consumer can start after
      // the first batch is done), then one is killed with jobs in flight.
      await more(200);
      await waitFor(
        async () => {
          if (runs.length >= 50 && byBoth()) return true;
          if (sent < 1000 && allRan()) await more(100);
          return false;
        },
        30_000,
        'both processes running jobs',
      );
      await a.kill(); // SIGKILL with jobs in flight
      await more(100);
      await waitFor(allRan, 20_000, 'every job to run');

      const r = checkDeliveries(
        acked,
        runs.map((x) => x.seq).filter((s) => acked.includes(s)),
      );
      expect(r.lost).toEqual([]);
      expect(runs.filter((x) => Number(x.seq) >= sent)).toEqual([]); // unexpected: never enqueued
      expect(acked.length).toBeGreaterThanOrEqual(sent - 5); // liveness
      expect(r.duplicated.length).toBeLessThanOrEqual(20); // at most what the killed process had in flight
      expect(new Set(runs.map((x) => x.by)).size).toBe(2); // both processes ran jobs
    } finally {
      await Promise.all(children.map((c) => c.stop()));
      await backend.cleanup(prefix, queue);
    }
  }, 60_000);
});
