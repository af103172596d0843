/** What only the Redis store does: several processes share one keyspace; each one's feed has its own commits. */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, expect, it } from 'vitest';
import { RedisAdapter } from '../src/adapters/redis.js';
import type { StateChange } from '../src/adapters/types.js';
import { updateMutation } from '../src/update-mutation.js';
import { REDIS_URL, deletePrefix, redisAnswers } from './support/stores.js';

// Redis is an external service (CI starts it with scripts/services.sh); without it these cases cannot run.
const redisUp = await redisAnswers();
const opened: RedisAdapter[] = [];
const prefixes: string[] = [];

/** A key prefix of this file's own, whose keys are deleted after the case. */
function testPrefix(): string {
  const prefix = `svc-test:${randomUUID()}:`;
  prefixes.push(prefix);
  return prefix;
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
  await Promise.all(prefixes.splice(0).map((prefix) => deletePrefix(prefix)));
});

async function pair(): Promise<[RedisAdapter, RedisAdapter, StateChange[], StateChange[]]> {
  const keyPrefix = testPrefix();
  const a = new RedisAdapter({ url: REDIS_URL, keyPrefix });
  const b = new RedisAdapter({ url: REDIS_URL, keyPrefix });
  opened.push(a, b);
  const seenA: StateChange[] = [];
  const seenB: StateChange[] = [];
  a.onChange((change) => void seenA.push(change));
  b.onChange((change) => void seenB.push(change));
  await Promise.all([a.start(), b.start()]);
  return [a, b, seenA, seenB];
}

it.skipIf(!redisUp)('two stores on one prefix share data; concurrent updates from both never lose one', async () => {
  const [a, b, seenA, seenB] = await pair();
  await a.set('s', 'k', { n: 0 });
  expect(await b.get('s', 'k')).toEqual({ n: 0 });
  const increment = updateMutation([{ type: 'increment', path: 'n', by: 1 }]);
  await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a : b).update('s', 'k', increment)));
  expect(await a.get('s', 'k')).toEqual({ n: 30 });
  // Each store reports only the changes it committed: together exactly one per write.
  expect(seenA.length + seenB.length).toBe(31);
  expect(seenB.every((change) => change.event_type === 'state:updated')).toBe(true);
  const counts = [...seenA, ...seenB].map((change) => (change.new_value as { n: number }).n).sort((x, y) => x - y);
  expect(counts).toEqual(Array.from({ length: 31 }, (_, i) => i));
});

it.skipIf(!redisUp)('fails to start with store_open_failed and a redacted URL when Redis is unreachable', async () => {
  const store = new RedisAdapter({ url: 'redis://:secret@127.0.0.1:1', keyPrefix: 'x:' });
  await expect(store.start()).rejects.toMatchObject({ code: 'store_open_failed' });
  await expect(store.start()).rejects.not.toThrow(/secret/);
});

it.skipIf(!redisUp)(
  'a value another program left in Redis that is not JSON fails its own get, not the batch',
  async () => {
    const keyPrefix = testPrefix();
    const raw = new Redis(REDIS_URL);
    await raw.hset(`${keyPrefix}scope:s`, 'bad', '{not json', 'good', '{"n":1}');
    raw.disconnect();
    const store = new RedisAdapter({ url: REDIS_URL, keyPrefix });
    opened.push(store);
    await store.start();
    // one turn: the gets go as one command, then the sets as one script call
    const [bad, badText, good, goodText] = await Promise.allSettled([
      store.get('s', 'bad'),
      store.getJson('s', 'bad'),
      store.get('s', 'good'),
      store.getJson('s', 'good'),
    ]);
    const invalid = { code: 'stored_value_invalid', message: expect.stringContaining('s/bad is not valid JSON') };
    expect(bad).toMatchObject({ status: 'rejected', reason: invalid });
    expect(badText).toMatchObject({ status: 'rejected', reason: invalid });
    expect(good).toEqual({ status: 'fulfilled', value: { n: 1 } });
    expect(goodText).toEqual({ status: 'fulfilled', value: '{"n":1}' });
    // writing over it works, and answers that there was no readable old value
    const [over, next] = await Promise.all([store.set('s', 'bad', 2), store.set('s', 'good', 3)]);
    expect(over).toEqual({ old_value: undefined, new_value: 2, old_json: null });
    expect(next).toEqual({ old_value: { n: 1 }, new_value: 3, old_json: '{"n":1}' });
    expect(await store.get('s', 'bad')).toBe(2);
  },
);
