/**
 * The `state` trigger type over real processes (workers/state/README.md, "Trigger type `state`"): payload shape and
 * filters, one event per committed change in commit order per key, a condition function, a slow handler that does not
 * hold writers back, and the bound on pending deliveries (writers wait; no event is dropped).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SvcClient } from '@svc/sdk';
import { startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';
import { armTrigger, e2eStores, sdkClient, startState, type StateEvent } from './state-helpers.js';

const stores = await e2eStores();

for (const store of stores) {
  // Redis is an external service (CI starts it with scripts/services.sh); without it its suite cannot run.
  describe.skipIf(store.skip)(`state triggers (${store.name} store)`, () => {
    let engine: EngineProcess;
    let state: Child;
    let client: SvcClient;

    beforeAll(async () => {
      engine = await startEngine();
      state = await startState(engine.url, { adapter: store.adapter, max_pending_triggers: 4 });
      client = await sdkClient(engine.url);
    });

    afterAll(async () => {
      await client?.shutdown();
      await Promise.all([state?.stop(), engine?.stop()]);
      await store.cleanup();
    });

    const call = <T = unknown>(function_id: string, payload: unknown) => client.trigger<T>({ function_id, payload });

    /** A handler that blocks until `open()`. */
    function gate() {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      return { open, wait: () => opened };
    }

    describe('state trigger', () => {
      it('fires created, updated and deleted with the protocol payload, filtered by scope and key', async () => {
        const { events } = await armTrigger(client, { scope: 'tr-shape', key: 'k' });
        await call('state::set', { scope: 'tr-shape', key: 'k', value: { v: 1 } });
        await call('state::set', { scope: 'tr-shape', key: 'other', value: 0 });
        await call('state::set', { scope: 'tr-else', key: 'k', value: 0 });
        await call('state::update', { scope: 'tr-shape', key: 'k', ops: [{ type: 'increment', path: 'v', by: 1 }] });
        await call('state::delete', { scope: 'tr-shape', key: 'k' });
        await waitFor(() => events.length >= 3, 5000, 'three events');
        const base = { type: 'state', scope: 'tr-shape', key: 'k' };
        expect(
          events.map(({ type, event_type, scope, key, old_value, new_value }) => ({
            type,
            event_type,
            scope,
            key,
            old_value,
            new_value,
          })),
        ).toEqual([
          { ...base, event_type: 'state:created', old_value: null, new_value: { v: 1 } },
          { ...base, event_type: 'state:updated', old_value: { v: 1 }, new_value: { v: 2 } },
          { ...base, event_type: 'state:deleted', old_value: { v: 2 }, new_value: null },
        ]);
      });

      it('delivers one event per committed change, in commit order per key, under concurrent writers', async () => {
        const { events } = await armTrigger(client, { scope: 'tr-order' }, async () => {
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
          return null;
        });
        const writes = Array.from({ length: 60 }, (_, i) =>
          call('state::set', { scope: 'tr-order', key: i % 2 === 0 ? 'even' : 'odd', value: i }),
        );
        await Promise.all(writes);
        await waitFor(() => events.length >= 60, 10_000, '60 events');
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(events).toHaveLength(60);
        for (const key of ['even', 'odd']) {
          const chain = events.filter((e) => e.key === key);
          expect(chain).toHaveLength(30);
          // Commit order: each event starts from the value the previous one left (sequence check).
          chain.forEach((event, i) => expect(event.old_value).toEqual(i === 0 ? null : chain[i - 1]?.new_value));
          expect(new Set(chain.map((e) => e.new_value)).size).toBe(30);
        }
      });

      it('runs the handler only when condition_function_id returns true', async () => {
        client.registerFunction('e2e::only-even', (event: StateEvent) => (event.new_value as number) % 2 === 0);
        const { events } = await armTrigger(client, { scope: 'tr-cond', condition_function_id: 'e2e::only-even' });
        for (const value of [1, 2, 3, 4]) await call('state::set', { scope: 'tr-cond', key: 'k', value });
        await waitFor(() => events.length >= 2, 5000, 'two events');
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(events.map((e) => e.new_value)).toEqual([2, 4]);
      });

      it('a handler that does not return does not hold writers back (below the bound)', async () => {
        const blocked = gate();
        const { events } = await armTrigger(client, { scope: 'tr-slow' }, async (event) => {
          if (event.key === 'k') await blocked.wait();
          return null;
        });
        // Three changes, under the bound of 4 pending deliveries: every write is answered while the handler hangs.
        for (const value of [1, 2, 3]) await call('state::set', { scope: 'tr-slow', key: 'k', value });
        await waitFor(() => events.length >= 1, 5000, 'the first event');
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(events.map((e) => e.new_value)).toEqual([1]);
        blocked.open();
        await waitFor(() => events.length >= 3, 5000, 'the held events');
        expect(events.map((e) => e.new_value)).toEqual([1, 2, 3]);
      });

      it('at the bound, writers wait instead of events being dropped', async () => {
        const blocked = gate();
        const { events } = await armTrigger(client, { scope: 'tr-bound' }, async (event) => {
          if (event.key === 'k') await blocked.wait();
          return null;
        });
        let answered = 0;
        const writes = Array.from({ length: 12 }, (_, i) =>
          call('state::set', { scope: 'tr-bound', key: 'k', value: i }).then(() => answered++),
        );
        await waitFor(() => answered >= 4, 5000, 'the writes that fit');
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(answered).toBeLessThan(12);
        blocked.open();
        await Promise.all(writes);
        await waitFor(() => events.length >= 12, 10_000, 'all 12 events');
        expect(events).toHaveLength(12);
        expect(new Set(events.map((e) => e.new_value)).size).toBe(12);
        const stats = await call<Record<string, number>>('state::trigger_stats', {});
        expect(stats).toMatchObject({ max_pending: 4, failed: 0 });
        expect(stats.backpressure_waits).toBeGreaterThan(0);
      });
    });
  });
}
