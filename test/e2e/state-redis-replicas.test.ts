/**
 * Two svc-state processes on one Redis behind one engine (and a second engine on the same Redis): writes through
 * any process are visible through the others, and each change fires a trigger once although every replica holds
 * the binding. Needs Redis on SVC_TEST_REDIS_URL (default 127.0.0.1:6379; CI starts it with scripts/services.sh).
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SvcClient } from '@svc/sdk';
import { startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';
import { armTrigger, REDIS_URL, redisAdapter, sdkClient, startState } from './state-helpers.js';

const prefix = `svc-e2e:${randomUUID()}:`;
const config = { adapter: redisAdapter(prefix) };
const redisUp = await (async () => {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  probe.on('error', () => undefined);
  const up = await probe.connect().then(
    () => true,
    () => false,
  );
  probe.disconnect();
  return up;
})();

let engine: EngineProcess;
let client: SvcClient;
const processes: Child[] = [];

// Redis is an external service; without it there is nothing to share state through.
describe.skipIf(!redisUp)('svc-state replicas on Redis', () => {
  beforeAll(async () => {
    engine = await startEngine();
    processes.push(await startState(engine.url, config), await startState(engine.url, config));
    client = await sdkClient(engine.url);
  });

  afterAll(async () => {
    await client?.shutdown();
    await Promise.all([...processes.map((p) => p.stop()), engine?.stop()]);
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  const call = <T = unknown>(function_id: string, payload: unknown) => client.trigger<T>({ function_id, payload });

  it('fires each change once although both replicas hold the binding', async () => {
    const { events } = await armTrigger(client, { scope: 'rep-trig' }, () => null, 10);
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => call('state::set', { scope: 'rep-trig', key: `k${i}`, value: i })),
    );
    await waitFor(() => events.length >= 40, 10_000, '40 events');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(events).toHaveLength(40);
    expect(new Set(events.map((e) => e.key)).size).toBe(40);
    // Both replicas hold the binding and both served (and fired for) some of the writes.
    const byPid = new Map<number, { bindings: number; delivered: number }>();
    await waitFor(
      async () => {
        const stats = await call<{ pid: number; bindings: number; delivered: number }>('state::trigger_stats', {});
        byPid.set(stats.pid, stats);
        return byPid.size === 2;
      },
      5000,
      'stats from both replicas',
    );
    for (const stats of byPid.values()) {
      expect(stats.bindings).toBeGreaterThanOrEqual(1);
      expect(stats.delivered).toBeGreaterThan(0);
    }
  });

  it('makes writes through either replica visible through the other', async () => {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => call('state::set', { scope: 'rep-vis', key: `a${i}`, value: i })),
    );
    // Only the second replica is left: it answers for writes the first one made.
    await processes[0]?.stop();
    expect(await call('state::list', { scope: 'rep-vis' })).toHaveLength(20);
    processes[0] = await startState(engine.url, config);
    await call('state::set', { scope: 'rep-vis', key: 'b', value: 'via any' });
    // Now only the new first replica is left.
    await processes[1]?.stop();
    expect(await call('state::list', { scope: 'rep-vis' })).toHaveLength(21);
    expect(await call('state::get', { scope: 'rep-vis', key: 'a7' })).toBe(7);
    processes[1] = await startState(engine.url, config);
  });

  it('shares the state with a second engine', async () => {
    const other = await startEngine();
    const otherState = await startState(other.url, config);
    const otherClient = await sdkClient(other.url, 'state-e2e-other');
    try {
      await call('state::set', { scope: 'rep-eng', key: 'k', value: { from: 'engine 1' } });
      expect(await otherClient.trigger({ function_id: 'state::get', payload: { scope: 'rep-eng', key: 'k' } })).toEqual(
        {
          from: 'engine 1',
        },
      );
      const groups = await otherClient.trigger<{ groups: string[] }>({
        function_id: 'state::list_groups',
        payload: {},
      });
      expect(groups.groups).toEqual(expect.arrayContaining(['rep-eng', 'rep-vis']));
    } finally {
      await otherClient.shutdown();
      await Promise.all([otherState.stop(), other.stop()]);
    }
  });
});
