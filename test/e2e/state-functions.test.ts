/**
 * svc-state as a real process behind a real engine: the `state::*` functions with the shapes of
 * workers/state/README.md, from our SDK and from the real iii-sdk client, `context.state` inside a handler, and bad
 * input answered with codes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerWorker as registerIiiWorker, type IIIClient } from 'iii-sdk';
import type { SvcClient } from '@svc/sdk';
import { startEngine, type Child, type EngineProcess } from '../harness.js';
import { armTrigger, e2eStores, failure, hasCode, sdkClient, startState } from './state-helpers.js';

const stores = await e2eStores();

for (const store of stores) {
  // Redis is an external service (CI starts it with scripts/services.sh); without it its suite cannot run.
  describe.skipIf(store.skip)(`state functions (${store.name} store)`, () => {
    let engine: EngineProcess;
    let state: Child;
    let client: SvcClient;
    let iii: IIIClient;

    beforeAll(async () => {
      engine = await startEngine();
      state = await startState(engine.url, { adapter: store.adapter, max_value_bytes: 1024 });
      client = await sdkClient(engine.url);
      iii = registerIiiWorker(engine.url, { otel: { enabled: false }, workerName: 'state-iii' });
    });

    afterAll(async () => {
      await iii?.shutdown();
      await client?.shutdown();
      await Promise.all([state?.stop(), engine?.stop()]);
      await store.cleanup();
    });

    const call = <T = unknown>(function_id: string, payload: unknown) => client.trigger<T>({ function_id, payload });

    describe('state functions through the engine (our SDK)', () => {
      it('set answers {old_value, new_value}; get answers the raw value or nothing', async () => {
        expect(await call('state::set', { scope: 'fn', key: 'a', value: { n: 1 } })).toEqual({
          old_value: null,
          new_value: { n: 1 },
        });
        expect(await call('state::set', { scope: 'fn', key: 'a', data: { n: 2 } })).toEqual({
          old_value: { n: 1 },
          new_value: { n: 2 },
        });
        expect(await call('state::get', { scope: 'fn', key: 'a' })).toEqual({ n: 2 });
        expect(await call('state::get', { scope: 'fn', key: 'missing' })).toBeUndefined();
      });

      it('delete answers the raw previous value, then nothing', async () => {
        await call('state::set', { scope: 'fn-del', key: 'k', value: 'bye' });
        expect(await call('state::delete', { scope: 'fn-del', key: 'k' })).toBe('bye');
        expect(await call('state::delete', { scope: 'fn-del', key: 'k' })).toBeUndefined();
      });

      it('update applies ops in order and reports failed ops without storing them', async () => {
        await call('state::set', { scope: 'fn-up', key: 'k', value: { count: 1, tags: ['a'] } });
        const result = await call('state::update', {
          scope: 'fn-up',
          key: 'k',
          ops: [
            { type: 'increment', path: 'count', by: 4 },
            { type: 'append', path: 'tags', value: 'b' },
            { type: 'merge', path: ['profile', 'address'], value: { city: 'Lyon' } },
            { type: 'set', path: '__proto__', value: { polluted: true } },
            { type: 'merge', value: { constructor: 1 } },
            { type: 'remove', path: 'gone' },
          ],
        });
        expect(result).toEqual({
          old_value: { count: 1, tags: ['a'] },
          new_value: { count: 5, tags: ['a', 'b'], profile: { address: { city: 'Lyon' } } },
          errors: [
            expect.objectContaining({ op_index: 3, code: 'set.path.proto_polluted' }),
            expect.objectContaining({ op_index: 4, code: 'merge.value.proto_polluted' }),
          ],
        });
        expect(await call('state::get', { scope: 'fn-up', key: 'k' })).toEqual(
          (result as { new_value: unknown }).new_value,
        );
      });

      it('list answers the values of a scope, list_entries its keys and values, list_groups the sorted scopes', async () => {
        await call('state::set', { scope: 'fn-list', key: 'b', value: 2 });
        await call('state::set', { scope: 'fn-list', key: 'a', value: 1 });
        expect(await call('state::list', { scope: 'fn-list' })).toEqual([1, 2]);
        expect(await call('state::list_entries', { scope: 'fn-list' })).toEqual({
          entries: [
            { key: 'a', value: 1 },
            { key: 'b', value: 2 },
          ],
        });
        const { groups } = await call<{ groups: string[] }>('state::list_groups', {});
        expect(groups).toContain('fn-list');
        expect(groups).toEqual([...groups].sort());
      });

      it('context.state in a handler of our SDK reads and writes through svc-state', async () => {
        client.registerFunction('e2e::visit', async (payload: { page: string }, context) => {
          const seen = ((await context.state.get<number>('visits', payload.page)) ?? 0) + 1;
          await context.state.set('visits', payload.page, seen);
          return { seen, all: await context.state.list('visits') };
        });
        expect(await call('e2e::visit', { page: 'home' })).toEqual({ seen: 1, all: [1] });
        expect(await call('e2e::visit', { page: 'home' })).toEqual({ seen: 2, all: [2] });
        expect(await call('state::get', { scope: 'visits', key: 'home' })).toBe(2);
      });
    });

    describe('bad input gets a clear error and stores nothing', () => {
      it.each([
        ['state::set', { key: 'k', value: 1 }, /scope is required/],
        ['state::set', { scope: 's', value: 1 }, /key is required/],
        ['state::set', { scope: 's', key: 'k' }, /value is required/],
        ['state::set', { scope: '', key: 'k', value: 1 }, /scope must be a non-empty string/],
        ['state::get', { scope: 's', key: 42 }, /key must be a non-empty string/],
        ['state::update', { scope: 's', key: 'k', ops: 'nope' }, /ops is required/],
        ['state::update', { scope: 's', key: 'k', ops: [{ type: 'explode' }] }, /ops\[0\]\.type must be one of/],
        [
          'state::update',
          { scope: 's', key: 'k', ops: [{ type: 'increment', path: 'n', by: 1.5 }] },
          /by must be an integer/,
        ],
        ['state::list', {}, /scope is required/],
      ])('%s %j', async (functionId, payload, message) => {
        const err = await failure(call(functionId, payload));
        expect(hasCode(err, 'INVALID_ARGUMENTS')).toBe(true);
        expect(err.message).toMatch(message);
        expect(await call('state::get', { scope: 's', key: 'k' })).toBeUndefined();
      });

      it('a value over max_value_bytes is refused with VALUE_TOO_LARGE, by set and by update', async () => {
        const big = 'x'.repeat(2000);
        const setErr = await failure(call('state::set', { scope: 'big', key: 'k', value: big }));
        expect(hasCode(setErr, 'VALUE_TOO_LARGE')).toBe(true);
        expect(setErr.message).toMatch(/max_value_bytes is 1024/);
        await call('state::set', { scope: 'big', key: 'k', value: 'small' });
        const upErr = await failure(
          call('state::update', { scope: 'big', key: 'k', ops: [{ type: 'append', path: '', value: big }] }),
        );
        expect(hasCode(upErr, 'VALUE_TOO_LARGE')).toBe(true);
        expect(await call('state::get', { scope: 'big', key: 'k' })).toBe('small');
      });

      it('a failed write fires no trigger', async () => {
        const { events } = await armTrigger(client, { scope: 'no-fire' });
        await failure(call('state::set', { scope: 'no-fire', key: 'k', value: 'x'.repeat(2000) }));
        await call('state::update', {
          scope: 'no-fire',
          key: 'k',
          ops: [{ type: 'set', path: 'constructor', value: 1 }],
        });
        await call('state::delete', { scope: 'no-fire', key: 'never-set' });
        await call('state::set', { scope: 'no-fire', key: 'marker', value: 1 });
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(events.map((e) => e.key)).toEqual(['marker']);
      });
    });

    describe('the real iii-sdk client', () => {
      it('calls every state function with the same shapes', async () => {
        const t = (function_id: string, payload: unknown) => iii.trigger({ function_id, payload });
        expect(await t('state::set', { scope: 'iii', key: 'k', value: [1] })).toEqual({
          old_value: null,
          new_value: [1],
        });
        expect(await t('state::get', { scope: 'iii', key: 'k' })).toEqual([1]);
        expect(await t('state::get', { scope: 'iii', key: 'none' })).toBeUndefined();
        expect(await t('state::update', { scope: 'iii', key: 'k', ops: [{ type: 'append', value: 2 }] })).toEqual({
          old_value: [1],
          new_value: [1, 2],
        });
        expect(await t('state::list', { scope: 'iii' })).toEqual([[1, 2]]);
        expect(await t('state::delete', { scope: 'iii', key: 'k' })).toEqual([1, 2]);
        expect(hasCode(await failure(t('state::set', { scope: 'iii', key: 'k' })), 'INVALID_ARGUMENTS')).toBe(true);
      });

      it('receives state trigger events in a handler registered with iii-sdk', async () => {
        const events: unknown[] = [];
        iii.registerFunction('iii::on-state', async (event: unknown) => {
          events.push(event);
          return null;
        });
        iii.registerTrigger({ type: 'state', function_id: 'iii::on-state', config: { scope: 'iii-trig' } });
        // a new key per attempt: a write made before the binding reached svc-state fires nothing, and the next one
        // must still be a creation
        let attempt = 0;
        await expect
          .poll(
            async () => {
              await call('state::set', { scope: 'iii-trig', key: `k${++attempt}`, value: attempt });
              return events.length;
            },
            { timeout: 5000, interval: 100 },
          )
          .toBeGreaterThan(0);
        expect(events[0]).toMatchObject({ type: 'state', event_type: 'state:created', scope: 'iii-trig' });
        expect((events[0] as { key: string }).key).toMatch(/^k\d+$/);
      });
    });
  });
}
