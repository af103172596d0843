/**
 * svc-queue's `max_queues`: a worker that puts an id in its queue names would start a consumer (and with Redis a
 * connection) per item. Past the limit a new queue is refused with `queue_limit`, through every way to start one,
 * while the queues it runs go on working; a second svc-queue on the same Redis leaves the queues it finds beyond its
 * own limit alone, with a warning. On RabbitMQ, reading a queue that does not exist (its counts, its dead letters)
 * creates nothing on the broker. The built-in in-memory store refuses a job past `max_store_bytes` with
 * `queue_store_full` and takes jobs again once its consumers caught up.
 */
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { InvocationError, TriggerAction, type SvcClient } from '@svc/sdk';
import { startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';
import { brokerNames, registryName } from '../../workers/queue/src/adapters/rabbitmq-topology.js';
import { builtinMemory, client, REDIS_URL, startedQueue } from './queue-support.js';

const AMQP_URL = process.env.SVC_TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

const PREFIX = `limits-${randomUUID().slice(0, 8)}`;
const adapter = {
  class: 'modules::queue::KvserverAdapter',
  config: { kvserver_url: REDIS_URL, prefix: PREFIX, backoff_ms: 100 },
};

let redisUp = false;
let engine: EngineProcess;
const queues: Child[] = [];
let worker: SvcClient;
const ran: string[] = [];

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

beforeAll(async () => {
  redisUp = await portOpen(6379);
  if (!redisUp) return;
  engine = await startEngine();
  queues.push(
    await startedQueue(engine.url, { max_queues: 3, queue_configs: { configured: { max_retries: 1 } }, adapter }),
  );
  worker = client(engine.url, 'queue-limits');
  worker.registerFunction('limits::run', (payload: { tag: string }) => void ran.push(payload.tag));
  await worker.ready();
}, 60_000);

afterAll(async () => {
  await worker?.shutdown();
  await Promise.all(queues.map((q) => q.stop()));
  await engine?.stop();
  if (!redisUp) return;
  const r = new Redis(REDIS_URL);
  const keys = await r.keys(`${PREFIX}:*`);
  if (keys.length) await r.del(...keys);
  r.disconnect();
});

const needRedis = (ctx: TestContext) => {
  if (!redisUp) ctx.skip('Redis is not reachable on 127.0.0.1:6379 (scripts/services.sh starts it)');
};

async function refusal(p: Promise<unknown>): Promise<InvocationError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InvocationError);
  return err as InvocationError;
}

const enqueue = (queue: string, tag: string) =>
  worker.trigger({ function_id: 'queue::enqueue', payload: { queue, function_id: 'limits::run', data: { tag } } });

describe('svc-queue max_queues (Redis)', () => {
  it('starts queues up to the limit, counting queue_configs, then refuses new ones with queue_limit', async (ctx) => {
    needRedis(ctx);
    await enqueue('configured', 'c1');
    await enqueue('orders-1', 'o1');
    await enqueue('orders-2', 'o2'); // the third queue: configured, orders-1, orders-2
    const refused = await refusal(enqueue('orders-3', 'o3'));
    expect(refused.code).toBe('queue_limit');
    expect(refused.message).toContain(
      "svc-queue consumes 3 queues already (max_queues), so it starts no queue 'orders-3'",
    );
    expect(
      (await refusal(worker.trigger({ function_id: 'queue::publish', payload: { topic: 'news', data: {} } }))).code,
    ).toBe('queue_limit');
    // TriggerAction.Enqueue: the engine's enqueue_error carries svc-queue's reason.
    const viaAction = await refusal(
      worker.trigger({
        function_id: 'limits::run',
        payload: { tag: 'a' },
        action: TriggerAction.Enqueue({ queue: 'orders-4' }),
      }),
    );
    expect(viaAction.message).toContain('max_queues');
    // The queues it runs go on working, and nothing of the refused ones ran.
    await enqueue('orders-1', 'o1-again');
    await waitFor(() => ['c1', 'o1', 'o2', 'o1-again'].every((t) => ran.includes(t)), 10_000, 'the accepted jobs');
    expect(ran).not.toContain('o3');
    expect(ran).not.toContain('a');
  });

  it('a second svc-queue on the same Redis consumes what its limit allows and warns about the rest', async (ctx) => {
    needRedis(ctx);
    const second = await startedQueue(engine.url, { max_queues: 1, adapter });
    queues.push(second);
    await second.waitForOutput(
      /2 queues of the backend are not consumed by this process: it consumes max_queues \(1\)/,
      15_000,
    );
  });
});

describe('svc-queue on RabbitMQ: reading a queue never creates it', () => {
  it('answers counts, dead letters and redrives of an unknown queue without declaring it', async (ctx) => {
    if (!(await portOpen(5672)))
      ctx.skip('RabbitMQ is not reachable on 127.0.0.1:5672 (scripts/services.sh starts it)');
    // An engine of its own: on the first, the Redis svc-queue would answer these calls too.
    const own = await startEngine();
    const prefix = `read-${randomUUID().slice(0, 8)}`;
    const broker = await startedQueue(own.url, {
      adapter: { class: 'modules::queue::BrokerAdapter', config: { amqp_url: AMQP_URL, prefix } },
    });
    const reader = client(own.url, 'queue-reader');
    try {
      const name = `never-${randomUUID().slice(0, 8)}`;
      const call = (function_id: string, payload: object) =>
        reader.trigger<Record<string, unknown>>({ function_id, payload });
      expect(await call('queue::topic_stats', { queue: name })).toMatchObject({ queue: name, waiting: 0, dead: 0 });
      expect(await call('queue::dlq_messages', { queue: name })).toMatchObject({ total: 0, messages: [] });
      expect(await call('queue::redrive', { queue: name })).toMatchObject({ queue: name, redriven: 0 });
      const main = brokerNames(prefix, name, {
        maxAttempts: 3,
        backoffMs: 1000,
        concurrency: 10,
        mode: 'concurrent',
      }).main;
      const conn = await amqp.connect(AMQP_URL);
      try {
        const ch = await conn.createChannel();
        ch.on('error', () => undefined);
        // Before, each read declared the queue (and its dead-letter and retry queues) and listed it for every process.
        await expect(ch.checkQueue(main)).rejects.toThrow(/404/);
      } finally {
        await conn.close().catch(() => undefined);
      }
    } finally {
      await reader.shutdown();
      await broker.stop();
      await own.stop();
      const conn = await amqp.connect(AMQP_URL);
      const ch = await conn.createChannel();
      await ch.deleteQueue(registryName(prefix));
      await conn.close();
    }
  });
});

describe('svc-queue on Redis: reading a queue never creates it', () => {
  it('answers counts, dead letters and redrives of an unknown queue without a key in Redis', async (ctx) => {
    needRedis(ctx);
    const own = await startEngine(); // on the first engine the other svc-queue would answer these calls too
    const prefix = `read-${randomUUID().slice(0, 8)}`;
    const redisQueue = await startedQueue(own.url, {
      adapter: { class: 'modules::queue::KvserverAdapter', config: { kvserver_url: REDIS_URL, prefix } },
    });
    const reader = client(own.url, 'queue-reader-redis');
    const r = new Redis(REDIS_URL);
    try {
      const call = (function_id: string, payload: object) =>
        reader.trigger<Record<string, unknown>>({ function_id, payload });
      for (let i = 0; i < 20; i++) {
        const name = `never-${i}`;
        expect(await call('queue::topic_stats', { queue: name })).toMatchObject({ queue: name, waiting: 0, dead: 0 });
        expect(await call('queue::dlq_messages', { queue: name })).toMatchObject({ total: 0, messages: [] });
        expect(await call('queue::redrive', { queue: name })).toMatchObject({ redriven: 0 });
        expect((await refusal(call('queue::discard_message', { queue: name, message_id: 'm' }))).code).toBe(
          'not_found',
        );
      }
      // Before, each name read left a `meta` key in Redis (and a BullMQ queue in svc-queue's memory).
      expect(await r.keys(`${prefix}:never-*`)).toEqual([]);
      await call('queue::enqueue', { queue: 'real', function_id: 'nobody::here', data: {} });
      expect(await call('queue::topic_stats', { queue: 'real' })).toMatchObject({ queue: 'real' });
    } finally {
      await reader.shutdown();
      await redisQueue.stop();
      await own.stop();
      const keys = await r.keys(`${prefix}:*`);
      if (keys.length) await r.del(...keys);
      r.disconnect();
    }
  });
});

describe('svc-queue builtin in_memory store size (max_store_bytes), on the real process', () => {
  it('refuses an enqueue past max_store_bytes with queue_store_full, runs what it took, and takes jobs again', async () => {
    const own = await startEngine(); // on the first engine the Redis svc-queue would take some of the enqueues
    const memory = await startedQueue(own.url, { adapter: builtinMemory({ max_store_bytes: 64 * 1024 }) });
    const consumer = client(own.url, 'queue-store-full');
    const held: Array<() => void> = [];
    const done: number[] = [];
    consumer.registerFunction('full::run', async (payload: { n: number }) => {
      await new Promise<void>((release) => held.push(release));
      done.push(payload.n);
    });
    await consumer.ready();
    const put = (n: number, queue = 'full') =>
      consumer.trigger({
        function_id: 'queue::enqueue',
        payload: { queue, function_id: 'full::run', data: { n, text: 'x'.repeat(10 * 1024) } },
      });
    try {
      for (let n = 0; n < 6; n++) await put(n);
      // Before, every enqueue was taken: a producer faster than its consumers ran svc-queue out of heap.
      const refused = await refusal(put(6));
      expect(refused.code).toBe('queue_store_full');
      expect(refused.message).toMatch(/would take it past max_store_bytes \(0\.1 MiB\): let its consumers catch up/);
      // the bound is the store's, not the queue's; and the engine's enqueue action carries the reason
      expect((await refusal(put(7, 'other'))).code).toBe('queue_store_full');
      const viaAction = await refusal(
        consumer.trigger({
          function_id: 'full::run',
          payload: { n: 8, text: 'x'.repeat(10 * 1024) },
          action: TriggerAction.Enqueue({ queue: 'full' }),
        }),
      );
      expect(viaAction.message).toContain('max_store_bytes');
      await waitFor(() => held.length === 6, 10_000, 'the six jobs it took running');
      for (const release of held.splice(0)) release();
      await waitFor(() => done.length === 6, 10_000, 'the six jobs done');
      await put(9); // their room is free again
      await waitFor(() => held.length === 1, 10_000, 'the job taken after the others completed');
      held.splice(0)[0]!();
      await waitFor(() => done.length === 7, 10_000, 'the last job done');
      expect(done.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 9]);
      expect(memory.exited).toBe(false);
    } finally {
      for (const release of held) release();
      await consumer.shutdown();
      await memory.stop();
      await own.stop();
    }
  });
});
