/**
 * svc-queue's `max_queues`: a worker that puts an id in its queue names would start a consumer (and with Redis a
 * connection) per item. Past the limit a new queue is refused with `queue_limit`, through every way to start one,
 * while the queues it runs go on working; a second svc-queue on the same Redis leaves the queues it finds beyond its
 * own limit alone, with a warning.
 */
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { InvocationError, TriggerAction, type SvcClient } from '@svc/sdk';
import { startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';
import { client, REDIS_URL, startedQueue } from './queue-support.js';

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
