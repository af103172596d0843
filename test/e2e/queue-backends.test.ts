/**
 * The svc-queue worker on the shared backends (Redis through BullMQ, RabbitMQ), end to end: TriggerAction.Enqueue,
 * dead letters through the admin functions (paged list, redrive one, discard one), queue::list_topics, and a topic
 * publish with an id (job ids `<id>:<function_id>`) fanned out to a `durable:subscriber`, and on Redis a retried
 * publish with the same id delivered once.
 */
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TriggerAction, type SvcClient } from '@svc/sdk';
import { startEngine, waitFor, type EngineProcess } from '../harness.js';
import { brokerNames, registryName } from '../../workers/queue/src/adapters/rabbitmq-topology.js';
import { client, REDIS_URL, sleep, startedQueue } from './queue-support.js';

const AMQP_URL = process.env.SVC_TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

const backends = [
  {
    key: 'redis',
    name: 'Redis (KvserverAdapter)',
    dedupes: true,
    port: 6379,
    adapter: (prefix: string) => ({
      class: 'modules::queue::KvserverAdapter',
      config: { kvserver_url: REDIS_URL, prefix, max_attempts: 2, backoff_ms: 50 },
    }),
    cleanup: async (prefix: string) => {
      const r = new Redis(REDIS_URL);
      const keys = await r.keys(`${prefix}:*`);
      if (keys.length) await r.del(...keys);
      r.disconnect();
    },
  },
  {
    key: 'amqp',
    name: 'RabbitMQ (BrokerAdapter)',
    dedupes: false, // RabbitMQ keeps no index of message ids (README "Known limits")
    port: 5672,
    adapter: (prefix: string) => ({
      class: 'modules::queue::BrokerAdapter',
      config: { amqp_url: AMQP_URL, prefix, max_attempts: 2, backoff_ms: 50 },
    }),
    cleanup: async (prefix: string, queues: string[]) => {
      const conn = await amqp.connect(AMQP_URL);
      const ch = await conn.createChannel();
      const settings = { maxAttempts: 2, backoffMs: 50, concurrency: 10, mode: 'concurrent' as const };
      for (const q of queues) {
        const n = brokerNames(prefix, q, settings);
        for (const name of [n.main, n.dead, ...n.retries.map((r) => r.name)]) await ch.deleteQueue(name);
      }
      await ch.deleteQueue(registryName(prefix));
      await conn.close();
    },
  },
];

let engine: EngineProcess;
let worker: SvcClient;
const runs: { fn: string; payload: Record<string, unknown> }[] = [];
let refuse = new Set<string>();

beforeAll(async () => {
  engine = await startEngine();
  worker = client(engine.url, 'queue-backends-worker');
  for (const b of backends) {
    for (const name of ['job', 'sub']) {
      const fn = `qb-${b.key}::${name}`;
      worker.registerFunction(fn, (payload: Record<string, unknown>) => {
        if (refuse.has(String(payload.key))) throw new Error(`refused ${String(payload.key)}`);
        runs.push({ fn, payload });
        return null;
      });
    }
  }
  await worker.ready();
});

afterAll(async () => {
  await worker?.shutdown();
  await engine?.stop();
});

describe.each(backends)('svc-queue on $name, end to end', (b) => {
  it('enqueue, dead letters, redrive, discard, list topics, publish with an id', async (ctx) => {
    if (!(await portOpen(b.port))) ctx.skip(`${b.name} is not reachable (scripts/services.sh starts it)`);
    const prefix = `svcqb${randomUUID().slice(0, 8)}`;
    const queue = `jobs-${prefix}`;
    const topic = `topic-${prefix}`;
    const svcQueue = await startedQueue(engine.url, { adapter: b.adapter(prefix) });
    const call = <T>(function_id: string, payload: unknown) => worker.trigger<T>({ function_id, payload });
    const fn = `qb-${b.key}::job`;
    try {
      refuse = new Set(['bad-1', 'bad-2']);
      for (const key of ['ok-1', 'bad-1', 'bad-2']) {
        await worker.trigger({ function_id: fn, payload: { key }, action: TriggerAction.Enqueue({ queue }) });
      }
      await waitFor(() => runs.some((r) => r.payload.key === 'ok-1'), 10_000, 'the good job');
      await waitFor(
        async () => (await call<{ dead: number }>('queue::topic_stats', { queue })).dead === 2,
        10_000,
        '2 dead letters',
      );
      const page1 = await call<{ total: number; messages: { id: string; attempts: number; data: { key: string } }[] }>(
        'queue::dlq_messages',
        { topic: queue, limit: 1 },
      );
      const page2 = await call<typeof page1>('queue::dlq_messages', { topic: queue, offset: 1, limit: 1 });
      expect([page1.total, page1.messages.length, page2.messages.length]).toEqual([2, 1, 1]);
      const all = [...page1.messages, ...page2.messages];
      expect(all.map((m) => m.data.key).sort()).toEqual(['bad-1', 'bad-2']);
      expect(all.every((m) => m.attempts === 2)).toBe(true);

      refuse = new Set();
      const one = all.find((m) => m.data.key === 'bad-1')!;
      const two = all.find((m) => m.data.key === 'bad-2')!;
      expect(await call('queue::redrive_message', { queue, message_id: one.id })).toMatchObject({ redriven: true });
      expect(await call('queue::discard_message', { queue, message_id: two.id })).toMatchObject({ discarded: true });
      await waitFor(() => runs.some((r) => r.payload.key === 'bad-1'), 10_000, 'the redriven job');
      await sleep(200);
      expect(runs.some((r) => r.payload.key === 'bad-2')).toBe(false);
      // ok-1 and the redriven bad-1 completed; both bad jobs were moved to dead letters once
      const completed = async () => (await call<{ completed: number }>('queue::topic_stats', { queue })).completed;
      await waitFor(async () => (await completed()) === 2, 10_000, 'two completed jobs');
      const topics = await call<{ topics: { queue: string; dead: number }[] }>('queue::list_topics', {});
      expect(topics.topics.find((t) => t.queue === queue)).toMatchObject({ dead: 0, completed: 2, failed: 2 });

      const sub = `qb-${b.key}::sub`;
      const t = worker.registerTrigger({ type: 'durable:subscriber', function_id: sub, config: { topic } });
      try {
        await waitFor(
          async () =>
            (await call<{ message_ids: string[] }>('queue::publish', { topic, id: 'p-1', data: { key: 'pub' } }))
              .message_ids.length === 1,
          5_000,
          'the subscription to reach svc-queue',
        );
        // a retried publish with the same id: a no-op where the backend dedupes ids
        if (b.dedupes) await call('queue::publish', { topic, id: 'p-1', data: { key: 'pub' } });
        await waitFor(() => runs.some((r) => r.fn === sub), 10_000, 'the published message');
        await sleep(300);
        expect(runs.filter((r) => r.fn === sub)).toHaveLength(1);
      } finally {
        t.unregister();
      }
    } finally {
      await svcQueue.stop();
      await b.cleanup(prefix, [queue, topic]);
    }
  }, 60_000);
});
