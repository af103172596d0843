/**
 * The rest of the engine's function surface (docs/compatibility.md, "Functions", "Configuration" and "Wire messages"),
 * from the unmodified iii-sdk and raw sockets: ownerless bindings through engine::register_trigger /
 * unregister_trigger, registerservice stored and listed, configuration::* with the configuration trigger type, and
 * engine::baggage::*.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { InvocationError, registerWorker, type IIIClient } from 'iii-sdk';
import { startEngine, waitFor, type EngineProcess } from '../harness.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let engine: EngineProcess;
let host: IIIClient;
const delivered: { id: string; function_id: string; config: unknown; metadata?: unknown }[] = [];
const removed: string[] = [];

const connect = (): IIIClient => registerWorker(engine.url, { otel: { enabled: false } });
const call = <T>(client: IIIClient, function_id: string, payload: unknown): Promise<T> =>
  client.trigger<unknown, T>({ function_id, payload });

async function failure(p: Promise<unknown>): Promise<InvocationError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InvocationError);
  return err as InvocationError;
}

/** A raw socket: sends `frames` once registered, resolves the invocation results it gets back. */
function rawSocket(
  frames: object[],
  expectResults: number,
): Promise<{ ws: WebSocket; results: Record<string, unknown>[] }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(engine.url);
    const results: Record<string, unknown>[] = [];
    ws.on('error', reject);
    ws.on('message', (data) => {
      const msg = JSON.parse((data as Buffer).toString()) as Record<string, unknown>;
      if (msg.type === 'workerregistered') for (const f of frames) ws.send(JSON.stringify(f));
      if (msg.type === 'invocationresult') results.push(msg);
      if (results.length === expectResults) resolve({ ws, results });
    });
  });
}

beforeAll(async () => {
  // a configuration up to 8 MiB: the schema-check test sends a value of 200,000 objects (2.4 MB of JSON)
  engine = await startEngine({ config: { configuration: { max_entry_bytes: 8 * 1024 * 1024 } } });
  host = connect();
  host.registerTriggerType(
    { id: 'surface-type', description: 'records its bindings' },
    {
      registerTrigger: async (t: (typeof delivered)[number]) => void delivered.push(t),
      unregisterTrigger: async (t: { id: string }) => void removed.push(t.id),
    },
  );
  host.registerFunction('surface::target', async () => 'ok');
  await waitFor(async () => {
    const types = await call<{ triggers: { id: string }[] }>(host, 'engine::triggers::list', {});
    return types.triggers.some((t) => t.id === 'surface-type');
  }, 10_000);
});

afterAll(async () => {
  await host?.shutdown();
  await engine?.stop();
});

describe('engine::register_trigger / engine::unregister_trigger', () => {
  it('binds a function; the binding outlives the caller and is removed only by id (idempotently)', async () => {
    const caller = connect();
    const { id } = await call<{ id: string }>(caller, 'engine::register_trigger', {
      trigger_type: 'surface-type',
      function_id: 'surface::target',
      config: { every: 5 },
      metadata: { tag: 'm' },
    });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await waitFor(() => delivered.some((t) => t.id === id), 5000, 'the provider to get the binding');
    expect(delivered.find((t) => t.id === id)).toMatchObject({
      function_id: 'surface::target',
      config: { every: 5 },
      metadata: { tag: 'm' },
    });

    await caller.shutdown();
    await new Promise((r) => setTimeout(r, 300));
    const listed = await call<{ registered_triggers: { id: string }[] }>(host, 'engine::registered-triggers::list', {});
    expect(listed.registered_triggers.some((t) => t.id === id)).toBe(true);
    expect(removed).not.toContain(id);

    expect(await call(host, 'engine::unregister_trigger', { id, trigger_type: 'surface-type' })).toEqual({
      removed: true,
    });
    await waitFor(() => removed.includes(id), 5000, 'the provider to drop the binding');
    expect(await call(host, 'engine::unregister_trigger', { id })).toEqual({ removed: false });
  });

  it('a binding of a type nobody provides yet waits, and activates when a provider registers the type', async () => {
    const { id } = await call<{ id: string }>(host, 'engine::register_trigger', {
      trigger_type: 'late-type',
      function_id: 'surface::target',
    });
    const seen: string[] = [];
    const provider = connect();
    provider.registerTriggerType(
      { id: 'late-type', description: 'late' },
      {
        registerTrigger: async (t: { id: string }) => void seen.push(t.id),
        unregisterTrigger: async () => undefined,
      },
    );
    await waitFor(() => seen.includes(id), 5000, 'the late provider to get the binding');
    await provider.shutdown();
  });

  it('refuses bad input with INVALID_ARGUMENTS naming the field', async () => {
    const err = await failure(call(host, 'engine::register_trigger', { function_id: 'surface::target' }));
    expect(err.code).toBe('INVALID_ARGUMENTS');
    expect(err.message).toContain('trigger_type');
    expect((await failure(call(host, 'engine::unregister_trigger', { id: 5 }))).code).toBe('INVALID_ARGUMENTS');
  });
});

describe('registerservice', () => {
  it('is stored, listed by engine::services::list, and leaves with its connection', async () => {
    const invocation_id = randomUUID();
    const { ws, results } = await rawSocket(
      [
        {
          type: 'registerservice',
          id: 'billing',
          name: 'Billing',
          description: 'Invoices',
          parent_service_id: 'finance',
        },
        { type: 'registerservice', id: 'bare' },
        { type: 'invokefunction', invocation_id, function_id: 'engine::services::list', data: {} },
      ],
      1,
    );
    const services = (results[0]!.result as { services: Record<string, unknown>[] }).services;
    expect(services).toContainEqual(
      expect.objectContaining({
        id: 'billing',
        name: 'Billing',
        description: 'Invoices',
        parent_service_id: 'finance',
      }),
    );
    expect(services).toContainEqual(expect.objectContaining({ id: 'bare', name: 'bare', source: 'registerservice' }));
    expect(services).toContainEqual(expect.objectContaining({ id: 'surface', source: 'function_ids' }));
    ws.close();
    await waitFor(async () => {
      const after = await call<{ services: { id: string }[] }>(host, 'engine::services::list', {});
      return !after.services.some((s) => s.id === 'billing');
    }, 5000);
  });
});

describe('configuration::*', () => {
  const schema = {
    type: 'object',
    properties: { port: { type: 'integer', minimum: 1 } },
    required: ['port'],
    additionalProperties: false,
  };

  it('register, get, set (checked against the schema), list, schema, and trigger events', async () => {
    const events: Record<string, unknown>[] = [];
    host.registerFunction('surface::on-config', async (e: Record<string, unknown>) => void events.push(e));
    host.registerTrigger({
      type: 'configuration',
      function_id: 'surface::on-config',
      config: { configuration_id: 'svc-web', event_types: ['configuration:updated'] },
    });
    await new Promise((r) => setTimeout(r, 200));

    const entry = await call(host, 'configuration::register', {
      id: 'svc-web',
      name: 'Web',
      description: 'web settings',
      schema,
      initial_value: { port: 8080 },
      metadata: { owner: 'web' },
    });
    expect(entry).toMatchObject({ id: 'svc-web', name: 'Web', value: { port: 8080 }, metadata: { owner: 'web' } });
    expect(await call(host, 'configuration::get', { id: 'svc-web' })).toEqual({ id: 'svc-web', value: { port: 8080 } });
    expect(await call(host, 'configuration::set', { id: 'svc-web', value: { port: 9090 } })).toEqual({
      old_value: { port: 8080 },
      new_value: { port: 9090 },
    });
    const bad = await failure(call(host, 'configuration::set', { id: 'svc-web', value: { port: 'x' } }));
    expect(bad.code).toBe('SCHEMA_INVALID');
    expect(bad.message).toContain('/port');
    expect(await call(host, 'configuration::get', { id: 'svc-web', raw: true })).toEqual({
      id: 'svc-web',
      value: { port: 9090 },
    });

    const list = await call<{ configurations: Record<string, unknown>[] }>(host, 'configuration::list', {});
    const row = list.configurations.find((c) => c.id === 'svc-web');
    expect(row).toMatchObject({ id: 'svc-web', name: 'Web', schema });
    expect(row).not.toHaveProperty('value');
    expect(await call(host, 'configuration::schema', { id: 'svc-web' })).toMatchObject({ id: 'svc-web', schema });

    await waitFor(() => events.length === 1, 5000, 'the configuration:updated event');
    expect(events[0]).toMatchObject({
      type: 'configuration',
      event_type: 'configuration:updated',
      id: 'svc-web',
      old_value: { port: 8080 },
      new_value: { port: 9090 },
      metadata: { owner: 'web' },
    });
  });

  it('answers unknown ids, bad ids and bad schemas with their codes', async () => {
    expect((await failure(call(host, 'configuration::get', { id: 'nope' }))).code).toBe('NOT_FOUND');
    expect((await failure(call(host, 'configuration::schema', { id: 'nope' }))).code).toBe('NOT_FOUND');
    expect((await failure(call(host, 'configuration::set', { id: 'nope', value: 1 }))).code).toBe('NOT_REGISTERED');
    const badId = await failure(call(host, 'configuration::register', { id: '../etc', name: 'x', schema: {} }));
    expect(badId.code).toBe('INVALID_ID');
    const badSchema = await failure(call(host, 'configuration::register', { id: 'bad', schema: { type: 'nonsense' } }));
    expect(badSchema.code).toBe('SCHEMA_INVALID');
    const seed = await failure(
      call(host, 'configuration::register', { id: 'seeded', schema, initial_value: { port: 0 } }),
    );
    expect(seed.code).toBe('SCHEMA_INVALID');
    expect((await failure(call(host, 'configuration::register', { id: 'x' }))).code).toBe('INVALID_ARGUMENTS');
  });

  it('takes schemas with an $id again: the same configuration re-registered, and two sharing one', async () => {
    const withId = { $id: 'https://example.test/limits.json', type: 'object', required: ['n'] };
    const register = (id: string) =>
      call<{ value: unknown }>(host, 'configuration::register', { id, schema: withId, initial_value: { n: 1 } });
    await register('with-id');
    // Before, Ajv kept every compiled $id: a worker registering its configuration again after a reconnect failed.
    expect((await register('with-id')).value).toEqual({ n: 1 });
    expect((await register('with-id-too')).value).toEqual({ n: 1 });
    const bad = await failure(call(host, 'configuration::set', { id: 'with-id-too', value: {} }));
    expect(bad.message).toContain("must have required property 'n'");
  });

  it('keeps routing while a schema backtracks or compares every pair, and refuses those values in bounded time', async () => {
    await call(host, 'configuration::register', {
      id: 'backtracks',
      schema: { type: 'string', pattern: '^(a+)+$' },
      initial_value: 'a',
    });
    await call(host, 'configuration::register', {
      id: 'pairs',
      schema: { type: 'array', uniqueItems: true },
      initial_value: [],
    });
    // `^(a+)+$` on 40 a's and a '!' tries 2^40 splits; 200,000 objects make 2·10^10 comparisons.
    const started = Date.now();
    const slow = [
      failure(call(host, 'configuration::set', { id: 'backtracks', value: `${'a'.repeat(40)}!` })),
      failure(
        call(host, 'configuration::set', { id: 'pairs', value: Array.from({ length: 200_000 }, (_, i) => ({ i })) }),
      ),
    ];
    // The engine's own functions answer meanwhile: the checks run off its event loop.
    const listed = await call<{ configurations: unknown[] }>(host, 'configuration::list', {});
    expect(listed.configurations.length).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(1000);
    for (const refused of await Promise.all(slow)) {
      expect(refused.code).toBe('SCHEMA_INVALID');
      expect(refused.message).toMatch(/took longer than 2000 ms/);
    }
    expect(await call(host, 'configuration::get', { id: 'backtracks' })).toEqual({ id: 'backtracks', value: 'a' });
    expect(await call(host, 'configuration::set', { id: 'backtracks', value: 'aaa' })).toEqual({
      old_value: 'a',
      new_value: 'aaa',
    });
  });
});

describe('engine::baggage::*', () => {
  it('reads the baggage the call arrived with; set answers the baggage to send on', async () => {
    const baggage = 'tenant=acme,user%20id=u%201;prop=1';
    const frame = (function_id: string, data: object) => ({
      type: 'invokefunction',
      invocation_id: randomUUID(),
      function_id,
      data,
      baggage,
    });
    const { ws, results } = await rawSocket(
      [
        frame('engine::baggage::get', { key: 'tenant' }),
        frame('engine::baggage::get', { key: 'absent' }),
        frame('engine::baggage::get_all', {}),
        frame('engine::baggage::set', { key: 'region', value: 'eu west' }),
      ],
      4,
    );
    ws.close();
    const byFn = (id: string) => results.filter((r) => r.function_id === id).map((r) => r.result);
    expect(byFn('engine::baggage::get')).toEqual(expect.arrayContaining([{ value: 'acme' }, { value: null }]));
    expect(byFn('engine::baggage::get_all')[0]).toEqual({ baggage: { tenant: 'acme', 'user%20id': 'u 1' } });
    const set = byFn('engine::baggage::set')[0] as { success: boolean; baggage: string };
    expect(set.success).toBe(true);
    expect(set.baggage).toContain('region=eu%20west');
    expect(set.baggage).toContain('tenant=acme');
  });

  it('without baggage get answers null and get_all an empty map', async () => {
    expect(await call(host, 'engine::baggage::get', { key: 'tenant' })).toEqual({ value: null });
    expect(await call(host, 'engine::baggage::get_all', {})).toEqual({ baggage: {} });
  });
});
