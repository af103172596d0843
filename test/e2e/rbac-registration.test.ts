/**
 * Registrations through a listener with access rules, from the unmodified iii-sdk: allow_function_registration,
 * function_registration_prefix, allow_trigger_type_registration, allowed_trigger_types, and the three
 * registration hooks (accept, rewrite, refuse by throwing or by answering null). A refused registration is dropped
 * silently (the wire has no ack), so each test registers a refused item before an accepted one: frames of one
 * connection are handled in order, so once the accepted one is visible the refused one was judged.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { IIIClient } from 'iii-sdk';
import { waitFor } from '../harness.js';
import {
  connect,
  listsFunction,
  listsTriggerType,
  registeredTriggers,
  startRbacRig,
  type RbacRig,
} from './rbac-support.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let rig: RbacRig;
const clients: IIIClient[] = [];

function worker(token?: string): IIIClient {
  const client = connect(rig.rbacUrl, token === undefined ? {} : { 'x-test-token': token });
  clients.push(client);
  return client;
}

const hookInputs = (hook: string) => rig.hookCalls.filter((c) => c.hook === hook).map((c) => c.input);
const visible = (id: string) => waitFor(() => listsFunction(rig.host, id), 10_000, `function ${id}`);

beforeAll(async () => {
  rig = await startRbacRig();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.shutdown()));
  await rig?.close();
});

describe('function registration', () => {
  it('the hook sees each registration with the session context; throwing or null refuses it', async () => {
    const client = worker('valid-token');
    client.registerFunction('denied::blocked-fn', async () => 'no');
    client.registerFunction('null::refused-fn', async () => 'no');
    client.registerFunction('ok::fn', async () => ({ ran: true }), {
      description: 'fine',
      metadata: { a: 1 },
    });
    await visible('ok::fn');
    expect(await listsFunction(rig.host, 'denied::blocked-fn')).toBe(false);
    expect(await listsFunction(rig.host, 'null::refused-fn')).toBe(false);
    expect(hookInputs('on-function-reg')).toContainEqual({
      function_id: 'ok::fn',
      description: 'fine',
      metadata: { a: 1 },
      context: { role: 'admin', user_id: 'user-1' },
    });
    await expect(rig.host.trigger({ function_id: 'ok::fn', payload: {} })).resolves.toEqual({ ran: true });
  });

  it('the hook may rename a function and replace its metadata', async () => {
    const client = worker('valid-token');
    const ref = client.registerFunction('rename::thing', async () => 'renamed');
    await visible('renamed::thing');
    const info = await rig.host.trigger<unknown, { metadata?: unknown }>({
      function_id: 'engine::functions::info',
      payload: { function_id: 'renamed::thing' },
    });
    expect(info.metadata).toEqual({ stamped: true });
    expect(await listsFunction(rig.host, 'rename::thing')).toBe(false);
    ref.unregister(); // by the id the worker knows
    await waitFor(async () => !(await listsFunction(rig.host, 'renamed::thing')), 10_000, 'renamed unregister');
  });

  it('allow_function_registration=false drops every registration: the worker cannot join an existing id', async () => {
    let joinedCalls = 0;
    const client = worker('no-register-token');
    client.registerFunction('test::ew::public::echo', async () => {
      joinedCalls++;
      return 'hijacked';
    });
    client.registerFunction('free::fn', async () => 'no');
    // a call sent after the registrations is handled after them (one connection's frames stay in order)
    await client.trigger({ function_id: 'test::ew::public::echo', payload: {} });
    expect(await listsFunction(rig.host, 'free::fn')).toBe(false);
    for (let i = 0; i < 6; i++) {
      const r = await rig.host.trigger<unknown, { public?: boolean }>({
        function_id: 'test::ew::public::echo',
        payload: {},
      });
      expect(r.public).toBe(true);
    }
    expect(joinedCalls).toBe(0);
    expect(hookInputs('on-function-reg').some((i) => i.function_id === 'free::fn')).toBe(false);
  });

  it('function_registration_prefix namespaces the ids; calls reach the worker under its own id', async () => {
    const client = worker('prefix-token');
    const seen: unknown[] = [];
    const ref = client.registerFunction('echo-p', async (data: unknown) => {
      seen.push(data);
      return { from: 'prefixed' };
    });
    await visible('test-prefix::echo-p');
    expect(await listsFunction(rig.host, 'echo-p')).toBe(false);
    await expect(rig.host.trigger({ function_id: 'test-prefix::echo-p', payload: { x: 1 } })).resolves.toEqual({
      from: 'prefixed',
    });
    expect(seen).toHaveLength(1);
    ref.unregister();
    await waitFor(async () => !(await listsFunction(rig.host, 'test-prefix::echo-p')), 10_000, 'prefixed unregister');
  });
});

describe('trigger type registration', () => {
  it('is refused unless the auth result allows it (default false)', async () => {
    const anonymous = worker();
    anonymous.registerTriggerType({ id: 'anon-type', description: 'x' }, handlers());
    const allowed = worker('valid-token');
    allowed.registerTriggerType({ id: 'denied-tt::type', description: 'Should be denied' }, handlers());
    allowed.registerTriggerType({ id: 'ok-type', description: 'fine' }, handlers());
    await waitFor(() => listsTriggerType(rig.host, 'ok-type'), 10_000, 'ok-type');
    // a call sent after the registration is handled after it (one connection's frames stay in order)
    await anonymous.trigger({ function_id: 'test::ew::public::echo', payload: {} });
    expect(await listsTriggerType(rig.host, 'anon-type')).toBe(false);
    expect(await listsTriggerType(rig.host, 'denied-tt::type')).toBe(false);
    expect(hookInputs('on-trigger-type-reg')).toContainEqual({
      trigger_type_id: 'denied-tt::type',
      description: 'Should be denied',
      context: { role: 'admin', user_id: 'user-1' },
    });
    expect(hookInputs('on-trigger-type-reg').some((i) => i.trigger_type_id === 'anon-type')).toBe(false);
  });
});

describe('trigger registration', () => {
  it('allowed_trigger_types limits the types a session may bind; the hook sees and may refuse the rest', async () => {
    const restricted = worker('restricted-token');
    restricted.registerFunction('r::target', async () => 1);
    restricted.registerTrigger({ type: 'other-trigger', function_id: 'r::target', config: {} });
    restricted.registerTrigger({ type: 'test-rbac-trigger', function_id: 'denied-trig::fn', config: {} });
    restricted.registerTrigger({ type: 'test-rbac-trigger', function_id: 'r::target', config: { k: 'v' } });
    await waitFor(
      async () => (await registeredTriggers(rig.host)).some((t) => t.function_id === 'r::target'),
      10_000,
      'allowed binding',
    );
    const bindings = await registeredTriggers(rig.host);
    expect(bindings.some((t) => t.trigger_type === 'other-trigger')).toBe(false);
    expect(bindings.some((t) => t.function_id === 'denied-trig::fn')).toBe(false);
    const inputs = hookInputs('on-trigger-reg');
    expect(inputs.some((i) => i.trigger_type === 'other-trigger')).toBe(false);
    expect(inputs).toContainEqual(
      expect.objectContaining({
        trigger_type: 'test-rbac-trigger',
        function_id: 'r::target',
        config: { k: 'v' },
        context: { role: 'restricted', user_id: 'user-2' },
      }),
    );
  });

  it('the hook may rewrite the config; a prefixed session binds its prefixed function', async () => {
    worker('valid-token').registerTrigger({ type: 'test-rbac-trigger', function_id: 'reconf::fn', config: { a: 1 } });
    const prefixed = worker('prefix-token');
    prefixed.registerFunction('bound', async () => 1);
    prefixed.registerTrigger({ type: 'test-rbac-trigger', function_id: 'bound', config: {} });
    await waitFor(
      async () => {
        const all = await registeredTriggers(rig.host);
        return (
          all.some((t) => t.function_id === 'reconf::fn') && all.some((t) => t.function_id === 'test-prefix::bound')
        );
      },
      10_000,
      'rewritten and prefixed bindings',
    );
    const rewritten = (await registeredTriggers(rig.host)).find((t) => t.function_id === 'reconf::fn');
    expect(rewritten?.config).toEqual({ rewritten: true });
  });
});

describe('engine::register_trigger from a session', () => {
  it('applies allowed_trigger_types (FORBIDDEN) and the registration prefix', async () => {
    const restricted = worker('restricted-token');
    const err = await restricted
      .trigger({
        function_id: 'engine::register_trigger',
        payload: { trigger_type: 'other-trigger', function_id: 'x' },
      })
      .then(
        () => undefined,
        (e: { code?: string; message?: string }) => e,
      );
    expect(err).toMatchObject({ code: 'FORBIDDEN' });
    expect(err?.message).toContain("Trigger type 'other-trigger' is not allowed");
    const ok = await restricted.trigger<unknown, { id: string }>({
      function_id: 'engine::register_trigger',
      payload: { trigger_type: 'test-rbac-trigger', function_id: 'r::via-fn' },
    });
    expect(ok.id).toBeTruthy();

    const prefixed = worker('prefix-token');
    const bound = await prefixed.trigger<unknown, { id: string }>({
      function_id: 'engine::register_trigger',
      payload: { trigger_type: 'test-rbac-trigger', function_id: 'via-fn' },
    });
    await waitFor(
      async () => (await registeredTriggers(rig.host)).some((t) => t.id === bound.id),
      10_000,
      'the binding made through the function',
    );
    const binding = (await registeredTriggers(rig.host)).find((t) => t.id === bound.id);
    expect(binding?.function_id).toBe('test-prefix::via-fn');
  });

  it('a session that is not allowed to call it gets FORBIDDEN', async () => {
    const err = await worker('valid-token')
      .trigger({
        function_id: 'engine::register_trigger',
        payload: { trigger_type: 'test-rbac-trigger', function_id: 'x' },
      })
      .then(
        () => undefined,
        (e: { code?: string }) => e,
      );
    expect(err).toMatchObject({ code: 'FORBIDDEN' });
  });
});

function handlers() {
  return { registerTrigger: async () => undefined, unregisterTrigger: async () => undefined };
}
