/**
 * The Bridge store: svc-state of engine B forwards every operation to the `state::*` functions of engine A. Writes
 * through B land in A's store (and the other way round), and B's `state` triggers fire for writes made through B.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SvcClient } from '@svc/sdk';
import { startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';
import { armTrigger, MEMORY_ADAPTER, sdkClient, startState } from './state-helpers.js';

let home: EngineProcess;
let remote: EngineProcess;
const children: Child[] = [];
let homeClient: SvcClient;
let remoteClient: SvcClient;

beforeAll(async () => {
  [home, remote] = await Promise.all([startEngine(), startEngine()]);
  children.push(await startState(home.url, { adapter: MEMORY_ADAPTER }));
  children.push(
    await startState(remote.url, {
      adapter: { class: 'modules::state::adapters::Bridge', config: { bridge_url: home.url } },
    }),
  );
  [homeClient, remoteClient] = await Promise.all([sdkClient(home.url), sdkClient(remote.url, 'state-e2e-remote')]);
});

afterAll(async () => {
  await Promise.all([homeClient?.shutdown(), remoteClient?.shutdown()]);
  await Promise.all(children.map((child) => child.stop()));
  await Promise.all([home?.stop(), remote?.stop()]);
});

it('forwards every function to the other engine and fires its own triggers for its writes', async () => {
  const viaRemote = (function_id: string, payload: unknown) => remoteClient.trigger({ function_id, payload });
  const viaHome = (function_id: string, payload: unknown) => homeClient.trigger({ function_id, payload });
  const { events } = await armTrigger(remoteClient, { scope: 'bridged' });

  expect(await viaRemote('state::set', { scope: 'bridged', key: 'k', value: { n: 1 } })).toEqual({
    old_value: null,
    new_value: { n: 1 },
  });
  expect(await viaHome('state::get', { scope: 'bridged', key: 'k' })).toEqual({ n: 1 });
  expect(
    await viaRemote('state::update', {
      scope: 'bridged',
      key: 'k',
      ops: [
        { type: 'increment', path: 'n', by: 2 },
        { type: 'set', path: 'prototype', value: 1 },
      ],
    }),
  ).toEqual({
    old_value: { n: 1 },
    new_value: { n: 3 },
    errors: [expect.objectContaining({ op_index: 1, code: 'set.path.proto_polluted' })],
  });
  await viaHome('state::set', { scope: 'bridged', key: 'other', value: 'from home' });
  expect(await viaRemote('state::list', { scope: 'bridged' })).toEqual([{ n: 3 }, 'from home']);
  expect(await viaRemote('state::list_groups', {})).toEqual({ groups: ['bridged'] });
  expect(await viaRemote('state::delete', { scope: 'bridged', key: 'k' })).toEqual({ n: 3 });
  expect(await viaHome('state::get', { scope: 'bridged', key: 'k' })).toBeUndefined();

  await waitFor(() => events.length >= 3, 5000, 'the bridged writes to fire');
  expect(events.map((e) => [e.event_type, e.key, e.new_value])).toEqual([
    ['state:created', 'k', { n: 1 }],
    ['state:updated', 'k', { n: 3 }],
    ['state:deleted', 'k', null],
  ]);
});
