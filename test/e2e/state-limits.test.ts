/**
 * svc-state's in-memory store size (`max_store_bytes`) on the real process behind a real engine: a write that
 * would take it past the bound is refused with `store_full` and stores nothing; overwrites that do not grow, and
 * deletes, are always taken, and a delete makes room again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SvcClient } from '@svc/sdk';
import { startEngine, type Child, type EngineProcess } from '../harness.js';
import { failure, sdkClient, startState } from './state-helpers.js';

let engine: EngineProcess;
let state: Child;
let client: SvcClient;

beforeAll(async () => {
  engine = await startEngine();
  state = await startState(engine.url, {
    adapter: {
      class: 'modules::state::adapters::KvStore',
      config: { store_method: 'in_memory', max_store_bytes: 64 * 1024 },
    },
    max_value_bytes: 1024 * 1024,
  });
  client = await sdkClient(engine.url);
});

afterAll(async () => {
  await client?.shutdown();
  await Promise.all([state?.stop(), engine?.stop()]);
});

const call = <T = unknown>(function_id: string, payload: unknown) => client.trigger<T>({ function_id, payload });
const big = (fill: string) => ({ text: fill.repeat(10 * 1024) });

describe('svc-state in_memory store size (max_store_bytes), on the real process', () => {
  it('refuses a write past max_store_bytes with store_full, keeps what it holds, and takes writes again after a delete', async () => {
    for (let i = 0; i < 6; i++) await call('state::set', { scope: 'full', key: `k${i}`, value: big('x') });
    // Before, every write was taken: a worker writing new keys ran svc-state out of heap.
    const refused = await failure(call('state::set', { scope: 'full', key: 'k6', value: big('x') }));
    expect(refused.code).toBe('SET_ERROR');
    expect(refused.message).toMatch(/would take it past max_store_bytes \(0\.1 MiB\): delete entries.*\(store_full\)/);
    expect(await call('state::get', { scope: 'full', key: 'k6' })).toBeUndefined();
    expect((await failure(call('state::set', { scope: 'other', key: 'k', value: big('x') }))).message).toContain(
      'store_full',
    );
    expect(await call('state::list_groups', {})).toEqual({ groups: ['full'] });
    // an update that grows an entry is refused too; one that does not, and an overwrite of the same size, are taken
    const grown = await failure(
      call('state::update', {
        scope: 'full',
        key: 'k0',
        ops: [{ type: 'set', path: 'more', value: 'y'.repeat(20_000) }],
      }),
    );
    expect(grown.code).toBe('UPDATE_ERROR');
    expect(grown.message).toContain('store_full');
    await call('state::set', { scope: 'full', key: 'k1', value: big('z') });
    expect(await call('state::get', { scope: 'full', key: 'k1' })).toEqual(big('z'));
    await call('state::set', { scope: 'full', key: 'k2', value: 'small' });
    // a delete makes room again
    await call('state::delete', { scope: 'full', key: 'k0' });
    await call('state::set', { scope: 'full', key: 'k6', value: big('x') });
    expect(await call('state::get', { scope: 'full', key: 'k6' })).toEqual(big('x'));
    expect(state.exited).toBe(false);
  });
});
