/**
 * One conformance suite for the pubsub adapters (LocalAdapter, KvserverAdapter on a real Redis): each subscribed
 * engine gets each message exactly once; unsubscribed topics get nothing. Plus the Redis-only promises: two
 * engines share messages, and publish fails at once with `publish_failed` while Redis is unreachable.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalAdapter } from '../../engine/src/modules/pubsub/adapters/local.js';
import { KvserverAdapter } from '../../engine/src/modules/pubsub/adapters/redis.js';
import type { PubSubAdapter } from '../../engine/src/modules/pubsub/index.js';

const logger = pino({ level: 'silent' });
const REDIS_URL = process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const open: PubSubAdapter[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((a) => a.close()));
});

interface Received {
  topic: string;
  data: unknown;
  traceparent?: string;
}

async function started(adapter: PubSubAdapter): Promise<{ adapter: PubSubAdapter; got: Received[] }> {
  const got: Received[] = [];
  open.push(adapter);
  await adapter.start((topic, data, traceparent) => {
    got.push(traceparent === undefined ? { topic, data } : { topic, data, traceparent });
  }, logger);
  return { adapter, got };
}

const until = async (cond: () => boolean, ms = 2000): Promise<void> => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
};
const settle = () => new Promise((r) => setTimeout(r, 100));

const prefix = `test:${randomUUID()}:`;
const factories: Array<[string, () => PubSubAdapter]> = [
  ['LocalAdapter', () => new LocalAdapter()],
  ['KvserverAdapter', () => new KvserverAdapter({ kvserver_url: REDIS_URL, channel_prefix: prefix })],
];

describe.each(factories)('%s', (_name, make) => {
  it('delivers each message once to a subscribed topic, in publish order, and nothing to others', async () => {
    const { adapter, got } = await started(make());
    await adapter.subscribe('a');
    for (let i = 0; i < 20; i++) await adapter.publish('a', { i });
    await adapter.publish('b', { ignored: true });
    await until(() => got.length >= 20);
    await settle();
    expect(got).toEqual(Array.from({ length: 20 }, (_, i) => ({ topic: 'a', data: { i } })));
  });

  it('stops delivering after unsubscribe, and carries any JSON value', async () => {
    const { adapter, got } = await started(make());
    await adapter.subscribe('t');
    for (const data of ['text', 42, null, [1, 2], { nested: { ok: true } }]) await adapter.publish('t', data);
    await until(() => got.length === 5);
    expect(got.map((g) => g.data)).toEqual(['text', 42, null, [1, 2], { nested: { ok: true } }]);
    await adapter.unsubscribe('t');
    await adapter.publish('t', 'late');
    await settle();
    expect(got).toHaveLength(5);
  });

  it("carries the publisher's traceparent to the delivery", async () => {
    const { adapter, got } = await started(make());
    await adapter.subscribe('traced');
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await adapter.publish('traced', { x: 1 }, traceparent);
    await until(() => got.length === 1);
    expect(got[0]).toEqual({ topic: 'traced', data: { x: 1 }, traceparent });
  });

  it('close() is idempotent', async () => {
    const { adapter } = await started(make());
    await adapter.close();
    await adapter.close();
  });
});

describe('KvserverAdapter across engines', () => {
  it('a message published on one engine reaches every engine subscribed to the topic, once each', async () => {
    const make = () => new KvserverAdapter({ kvserver_url: REDIS_URL, channel_prefix: prefix });
    const one = await started(make());
    const two = await started(make());
    const three = await started(make());
    await one.adapter.subscribe('x');
    await two.adapter.subscribe('x');
    for (let i = 0; i < 10; i++) await three.adapter.publish('x', i);
    await until(() => one.got.length >= 10 && two.got.length >= 10);
    await settle();
    expect(one.got.map((g) => g.data)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(two.got.map((g) => g.data)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(three.got).toEqual([]);
  });

  it('publish fails at once with publish_failed while Redis is unreachable', async () => {
    const { adapter } = await started(new KvserverAdapter({ kvserver_url: 'redis://127.0.0.1:1' }));
    const t0 = Date.now();
    const error = await adapter.publish('x', 1).catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe('publish_failed');
    expect((error as Error).message).toMatch(/publish to 'x' failed/);
    expect(Date.now() - t0).toBeLessThan(1000);
  });
});
