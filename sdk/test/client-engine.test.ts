/** Our SDK against the real engine process: calls, errors, void, replicas of nothing; what a user checks first. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, waitFor, type EngineProcess } from '../../test/harness.js';
import { InvocationError, JsonText, TriggerAction, type SvcClient } from '../src/index.js';
import { barrier, connect, shutdownAll } from './support.js';

let engine: EngineProcess;
let exec: SvcClient;
let caller: SvcClient;

beforeAll(async () => {
  engine = await startEngine({ bare: true });
  exec = connect(engine.url, 'sdk-exec');
  caller = connect(engine.url, 'sdk-caller');
  await Promise.all([exec.ready(), caller.ready()]);
});

afterAll(async () => {
  await shutdownAll();
  await engine?.stop();
});

describe('sdk against the engine', () => {
  it('calls a function on another worker and gets its result, metadata and payload intact', async () => {
    exec.registerFunction('sdk::echo', (payload: unknown, ctx) => ({
      payload,
      metadata: ctx.metadata,
      id: ctx.invocationId,
    }));
    await barrier(exec);
    const out = await caller.trigger<{ payload: Record<string, unknown>; metadata: unknown; id: string }>({
      function_id: 'sdk::echo',
      payload: { a: 1, s: 'é' },
      metadata: { m: true },
    });
    expect(out.payload).toMatchObject({ a: 1, s: 'é' });
    expect(out.metadata).toEqual({ m: true });
    expect(out.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a result the handler gives as JSON text reaches the caller as the value it encodes', async () => {
    exec.registerFunction('sdk::stored', async () => new JsonText('{"list":[1,"two",null],"s":"é"}'));
    await barrier(exec);
    await expect(caller.trigger({ function_id: 'sdk::stored', payload: {} })).resolves.toEqual({
      list: [1, 'two', null],
      s: 'é',
    });
  });

  it('a JSON text that is not JSON fails the call at once with invalid_result', async () => {
    exec.registerFunction('sdk::broken-text', () => new JsonText('{"list":[1,'));
    await barrier(exec);
    const err = await caller
      .trigger({ function_id: 'sdk::broken-text', payload: {}, timeoutMs: 20_000 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvocationError);
    expect(err).toMatchObject({ code: 'invalid_result', function_id: 'sdk::broken-text' });
  });

  it('answers undefined when the handler returns nothing', async () => {
    exec.registerFunction('sdk::nothing', () => undefined);
    await barrier(exec);
    await expect(caller.trigger({ function_id: 'sdk::nothing', payload: {} })).resolves.toBeUndefined();
  });

  it('a thrown error reaches the caller as invocation_failed with the remote stack', async () => {
    exec.registerFunction('sdk::fail', () => {
      throw new Error('boom from handler');
    });
    await barrier(exec);
    const err = await caller.trigger({ function_id: 'sdk::fail', payload: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvocationError);
    expect(err).toMatchObject({ code: 'invocation_failed', function_id: 'sdk::fail' });
    expect((err as InvocationError).message).toBe('invocation_failed: boom from handler');
    expect((err as InvocationError).stacktrace).toContain('boom from handler');
  });

  it('a thrown InvocationError keeps its own code and message on the wire', async () => {
    exec.registerFunction('sdk::refuse', () => {
      throw new InvocationError({ code: 'VALUE_TOO_LARGE', message: 'value is 2048 bytes; the limit is 1024' });
    });
    await barrier(exec);
    const err = await caller.trigger({ function_id: 'sdk::refuse', payload: {} }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'VALUE_TOO_LARGE', detail: 'value is 2048 bytes; the limit is 1024' });
    expect((err as InvocationError).message).toBe('VALUE_TOO_LARGE: value is 2048 bytes; the limit is 1024');
  });

  it('an unknown function is function_not_found', async () => {
    await expect(caller.trigger({ function_id: 'sdk::missing', payload: {} })).rejects.toMatchObject({
      code: 'function_not_found',
    });
  });

  it('Void resolves at once and the handler still runs', async () => {
    const seen: unknown[] = [];
    exec.registerFunction('sdk::sink', (p: unknown) => {
      seen.push(p);
    });
    await barrier(exec);
    await expect(
      caller.trigger({ function_id: 'sdk::sink', payload: { n: 7 }, action: TriggerAction.Void() }),
    ).resolves.toBeUndefined();
    await waitFor(() => seen.length === 1, 3000, 'void call to arrive');
    expect(seen[0]).toMatchObject({ n: 7 });
  });

  it('a client-side deadline rejects with TIMEOUT', async () => {
    exec.registerFunction('sdk::never', () => new Promise(() => undefined));
    await barrier(exec);
    const err = await caller.trigger({ function_id: 'sdk::never', payload: {}, timeoutMs: 150 }).catch((e) => e);
    expect(err).toMatchObject({ code: 'TIMEOUT', message: 'TIMEOUT: invocation timed out after 150ms' });
  });

  it('a function unregistered by its worker is gone', async () => {
    const ref = exec.registerFunction('sdk::temp', () => 1);
    await barrier(exec);
    ref.unregister();
    await waitFor(
      async () =>
        (await caller.trigger({ function_id: 'sdk::temp' }).catch((e: InvocationError) => e.code)) ===
        'function_not_found',
      3000,
      'function to disappear',
    );
  });

  it('a payload or result that is not JSON rejects the call with serialization_error instead of hanging', async () => {
    exec.registerFunction('sdk::bigint', () => ({ n: 10n }));
    await barrier(exec);
    await expect(caller.trigger({ function_id: 'sdk::bigint', payload: {} })).rejects.toMatchObject({
      code: 'serialization_error',
    });
    await expect(caller.trigger({ function_id: 'sdk::echo', payload: { n: 1n } })).rejects.toMatchObject({
      code: 'serialization_error',
    });
    await expect(
      caller.trigger({ function_id: 'sdk::echo', payload: { n: 1n }, action: TriggerAction.Void() }),
    ).rejects.toMatchObject({ code: 'serialization_error' });
  });

  it('Enqueue without a queue provider fails with enqueue_error', async () => {
    await expect(
      caller.trigger({ function_id: 'sdk::echo', payload: {}, action: TriggerAction.Enqueue({ queue: 'q' }) }),
    ).rejects.toMatchObject({ code: 'enqueue_error' });
  });
});
