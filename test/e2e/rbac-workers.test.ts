/**
 * Worker-manager access control, seen from the unmodified iii-sdk: the auth function decides each session at the
 * upgrade (AUTH_ERROR + close on failure), FORBIDDEN for what a session may not call, expose_functions by id
 * pattern and by metadata, the session's allowed/forbidden lists, the middleware function, the infrastructure
 * carve-out, the filtered function list, and several listeners with different rules in one engine.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { InvocationError, type IIIClient } from 'iii-sdk';
import { waitFor } from '../harness.js';
import { connect, startRbacRig, type RbacRig } from './rbac-support.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let rig: RbacRig;
const clients: IIIClient[] = [];

function worker(url: string, token?: string): IIIClient {
  const client = connect(url, token === undefined ? {} : { 'x-test-token': token });
  clients.push(client);
  return client;
}

async function rejection(p: Promise<unknown>): Promise<InvocationError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InvocationError);
  return err as InvocationError;
}

/** The frames a raw socket receives before the engine closes it (or `ms` passes). */
function rawSession(url: string, ms = 5000): Promise<{ frames: unknown[]; closeCode: number | undefined }> {
  return new Promise((resolve) => {
    const frames: unknown[] = [];
    const ws = new WebSocket(url, { headers: { 'x-test-token': 'invalid' } });
    const timer = setTimeout(() => {
      ws.terminate();
      resolve({ frames, closeCode: undefined });
    }, ms);
    ws.on('message', (data) => frames.push(JSON.parse((data as Buffer).toString())));
    ws.on('error', () => undefined);
    ws.on('close', (code) => {
      clearTimeout(timer);
      resolve({ frames, closeCode: code });
    });
  });
}

beforeAll(async () => {
  rig = await startRbacRig();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.shutdown()));
  await rig?.close();
});

describe('auth function', () => {
  it('is called with headers, query params and ip, and its context reaches the middleware', async () => {
    const client = worker(`${rig.rbacUrl}/?team=a&team=b`, 'valid-token');
    const result = await client.trigger<unknown, Record<string, unknown>>({
      function_id: 'test::ew::valid-token-echo',
      payload: { msg: 'hello' },
    });
    expect(result.valid_token).toBe(true);
    expect(result.echoed).toMatchObject({ msg: 'hello', _intercepted: true, _caller: 'user-1' });
    const call = rig.authCalls.find((c) => (c.query_params as Record<string, string[]>).team !== undefined)!;
    expect((call.headers as Record<string, string>)['x-test-token']).toBe('valid-token');
    expect(call.query_params).toEqual({ team: ['a', 'b'] });
    expect(call.ip_address).toMatch(/127\.0\.0\.1/);
  });

  it('refuses the connection with an AUTH_ERROR frame and a close when the auth function fails', async () => {
    const { frames, closeCode } = await rawSession(rig.rbacUrl);
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatchObject({ type: 'error', error: { code: 'AUTH_ERROR' } });
    expect((frames[0] as { error: { message: string } }).error.message).toContain('invalid token');
    expect(closeCode).toBeDefined();
  });

  it('refuses the telemetry socket (/otel) the same way', async () => {
    const { frames, closeCode } = await rawSession(`${rig.rbacUrl}/otel`);
    expect(frames[0]).toMatchObject({ type: 'error', error: { code: 'AUTH_ERROR' } });
    expect(closeCode).toBeDefined();
  });

  it('refuses an auth result that is null or has a field of the wrong type', async () => {
    for (const token of ['null-token', 'bad-shape-token']) {
      const outcome = await new Promise<unknown[]>((resolve) => {
        const frames: unknown[] = [];
        const ws = new WebSocket(rig.rbacUrl, { headers: { 'x-test-token': token } });
        ws.on('message', (data) => frames.push(JSON.parse((data as Buffer).toString())));
        ws.on('close', () => resolve(frames));
      });
      expect(outcome[0]).toMatchObject({ type: 'error', error: { code: 'AUTH_ERROR' } });
    }
  });
});

describe('what a session may call', () => {
  it('FORBIDDEN for a function nothing exposes, naming the remedy', async () => {
    const err = await rejection(
      worker(rig.rbacUrl, 'valid-token').trigger({ function_id: 'test::ew::private', payload: {} }),
    );
    expect(err.code).toBe('FORBIDDEN');
    expect(err.message).toContain("function 'test::ew::private' not allowed (add to rbac.expose_functions)");
  });

  it('FORBIDDEN for a function the session forbids, even when exposed', async () => {
    const client = worker(rig.rbacUrl, 'restricted-token');
    const err = await rejection(client.trigger({ function_id: 'test::ew::public::echo', payload: {} }));
    expect(err.code).toBe('FORBIDDEN');
    expect(err.message).toContain('remove from rbac.forbidden_functions');
    // the allow-list of another session does not leak into this one
    const other = await rejection(client.trigger({ function_id: 'test::ew::valid-token-echo', payload: {} }));
    expect(other.code).toBe('FORBIDDEN');
  });

  it('exposes by id pattern and by metadata (exact value and match() pattern)', async () => {
    const client = worker(rig.rbacUrl);
    for (const id of ['test::ew::public::echo', 'test::ew::meta-public', 'test::ew::meta-tagged']) {
      const result = await client.trigger<unknown, { echoed: Record<string, unknown> }>({
        function_id: id,
        payload: {},
      });
      expect(result.echoed._caller).toBe('anonymous');
    }
  });

  it('lets a restricted session use the infrastructure functions (worker metadata, logs)', async () => {
    const client = worker(rig.rbacUrl, 'restricted-token');
    await expect(
      client.trigger({ function_id: 'engine::log::info', payload: { message: 'hi' } }),
    ).rejects.not.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(
      client.trigger({ function_id: 'engine::workers::register', payload: { runtime: 'node' } }),
    ).resolves.toBeDefined();
  });

  it('engine::functions::list shows a session only what it may call', async () => {
    const client = worker(rig.rbacUrl, 'valid-token');
    const list = await client.trigger<unknown, { functions: { function_id: string }[] }>({
      function_id: 'engine::functions::list',
      payload: {},
    });
    const ids = list.functions.map((f) => f.function_id);
    expect(ids).toEqual(
      expect.arrayContaining(['test::ew::valid-token-echo', 'test::ew::public::echo', 'test::ew::meta-public']),
    );
    expect(ids).not.toContain('test::ew::private');
    expect(ids).not.toContain('test::rbac::auth');
  });

  it('engine::functions::info answers FORBIDDEN for a hidden function, and marks it in a batch', async () => {
    const client = worker(rig.rbacUrl, 'valid-token');
    const err = await rejection(
      client.trigger({ function_id: 'engine::functions::info', payload: { function_id: 'test::ew::private' } }),
    );
    expect(err.code).toBe('FORBIDDEN');
    const shown = await client.trigger<unknown, { function_id: string }>({
      function_id: 'engine::functions::info',
      payload: { function_id: 'test::ew::public::echo' },
    });
    expect(shown.function_id).toBe('test::ew::public::echo');
    const batch = await client.trigger<unknown, { functions: Record<string, unknown>[] }>({
      function_id: 'engine::functions::info',
      payload: { function_ids: ['test::ew::public::echo', 'test::ew::private'] },
    });
    expect(batch.functions[0]).toMatchObject({ function_id: 'test::ew::public::echo' });
    expect(batch.functions[1]).toEqual({ function_id: 'test::ew::private', error: 'forbidden' });
  });
});

describe('middleware function', () => {
  it('receives function_id, payload, action and context, and its answer is the result', async () => {
    const client = worker(rig.rbacUrl, 'valid-token');
    rig.hookCalls.length = 0;
    await client.trigger({ function_id: 'test::ew::public::echo', payload: { n: 1 }, metadata: { m: 2 } });
    const call = rig.hookCalls.find((c) => c.hook === 'middleware')!;
    expect(call.input).toMatchObject({
      function_id: 'test::ew::public::echo',
      payload: { n: 1 },
      context: { role: 'admin', user_id: 'user-1' },
    });
    expect(call.input.payload).not.toHaveProperty('_caller_worker_id');
  });

  it("fails the call with the middleware's error when it refuses", async () => {
    const client = worker(rig.rbacUrl, 'valid-token');
    const err = await rejection(client.trigger({ function_id: 'test::ew::public::blocked', payload: {} }));
    expect(err.code).toBe('invocation_failed');
    expect(err.message).toContain('middleware says no');
  });

  it('comes after the access check: a forbidden call never reaches it', async () => {
    const client = worker(rig.rbacUrl, 'valid-token');
    rig.hookCalls.length = 0;
    const err = await rejection(client.trigger({ function_id: 'test::ew::private', payload: {} }));
    expect(err.code).toBe('FORBIDDEN');
    expect(rig.hookCalls.filter((c) => c.hook === 'middleware')).toHaveLength(0);
  });

  it('is skipped for engine::* functions', async () => {
    const client = worker(rig.rbacUrl, 'valid-token');
    rig.hookCalls.length = 0;
    await client.trigger({ function_id: 'engine::functions::list', payload: {} });
    expect(rig.hookCalls.filter((c) => c.hook === 'middleware')).toHaveLength(0);
  });
});

describe('several listeners', () => {
  it('the open listener has no rules while the others apply their own', async () => {
    const open = await rig.host.trigger<unknown, { private: boolean }>({
      function_id: 'test::ew::private',
      payload: {},
    });
    expect(open.private).toBe(true);

    const strict = worker(rig.strictUrl);
    const allowed = await strict.trigger<unknown, { strict: boolean; echoed: Record<string, unknown> }>({
      function_id: 'strict::only',
      payload: {},
    });
    expect(allowed.strict).toBe(true);
    expect(allowed.echoed._intercepted).toBeUndefined(); // no middleware on this listener
    const err = await rejection(strict.trigger({ function_id: 'test::ew::public::echo', payload: {} }));
    expect(err.code).toBe('FORBIDDEN');

    const rbac = worker(rig.rbacUrl, 'valid-token');
    const denied = await rejection(rbac.trigger({ function_id: 'strict::only', payload: {} }));
    expect(denied.code).toBe('FORBIDDEN');
  });

  it('a listener with rbac but no auth function registers freely (permissive session)', async () => {
    const strict = worker(rig.strictUrl);
    strict.registerFunction('strict::from-worker', async () => ({ ok: true }));
    await waitFor(async () => {
      const r = await rig.host
        .trigger<unknown, { ok: boolean }>({ function_id: 'strict::from-worker', payload: {} })
        .catch(() => undefined);
      return r?.ok === true;
    }, 10_000);
  });
});
