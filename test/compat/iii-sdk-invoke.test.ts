/**
 * The real iii-sdk@0.22.1 against our engine (docs/protocol.md, sections 2 and 3): sync and void calls, handler errors
 * with their stack, unknown functions, enqueue without a queue provider, and `_caller_worker_id` injection.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerWorker, TriggerAction, type IIIClient } from 'iii-sdk';
import { spawnWorker, startEngine, type Child, type EngineProcess } from '../harness.js';

// spawns real processes: generous limits for a loaded machine (the assertions carry the real bounds)
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let engine: EngineProcess;
let executor: Child;
let caller: IIIClient;

beforeAll(async () => {
  engine = await startEngine();
  executor = spawnWorker('test/compat/fixtures/iii-worker.mjs', { SVC_URL: engine.url, FN_PREFIX: 'inv' });
  await executor.waitForOutput(/ready /);
  caller = registerWorker(engine.url, { otel: { enabled: false }, workerName: 'compat-caller' });
});

afterAll(async () => {
  await caller?.shutdown();
  await Promise.all([executor?.stop(), engine?.stop()]);
});

describe('iii-sdk caller → engine → iii-sdk executor', () => {
  it('answers a sync call with the handler result, payload carrying _caller_worker_id', async () => {
    const result = (await caller.trigger({ function_id: 'inv::echo', payload: { hello: 'world' } })) as {
      echo: Record<string, unknown>;
    };
    expect(result.echo.hello).toBe('world');
    expect(typeof result.echo._caller_worker_id).toBe('string');
  });

  it('resolves a void call at once with undefined, and still runs the handler', async () => {
    await expect(
      caller.trigger({ function_id: 'inv::echo', payload: { v: 1 }, action: TriggerAction.Void() }),
    ).resolves.toBeUndefined();
  });

  it('relays invocation_failed with the handler stack', async () => {
    const err = await caller.trigger({ function_id: 'inv::fail', payload: {} }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'invocation_failed' });
    expect((err as { message: string }).message).toContain('boom from iii-sdk');
    expect((err as { stacktrace?: string }).stacktrace).toMatch(/Error: boom from iii-sdk\n\s+at /);
  });

  it('answers function_not_found for an unknown id', async () => {
    const err = await caller.trigger({ function_id: 'inv::missing', payload: {} }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'function_not_found' });
    expect((err as Error).message).toContain('inv::missing');
  });

  it('answers enqueue_error when no queue provider is registered', async () => {
    const err = await caller
      .trigger({ function_id: 'inv::echo', payload: {}, action: TriggerAction.Enqueue({ queue: 'q' }) })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'enqueue_error' });
    expect((err as Error).message).toContain('engine::queue::enqueue');
  });

  it('routes enqueue through engine::queue::enqueue when a provider exists and returns its receipt', async () => {
    const seen: unknown[] = [];
    const ref = caller.registerFunction('engine::queue::enqueue', async (data: unknown) => {
      seen.push(data);
      return { ignored: true };
    });
    try {
      await new Promise((r) => setTimeout(r, 100));
      const result = (await caller.trigger({
        function_id: 'inv::echo',
        payload: { job: 1 },
        action: TriggerAction.Enqueue({ queue: 'jobs' }),
      })) as { messageReceiptId: string };
      expect(result.messageReceiptId).toMatch(/^[0-9a-f-]{36}$/);
      expect(seen[0]).toMatchObject({
        queue: 'jobs',
        function_id: 'inv::echo',
        data: { job: 1 },
        messageReceiptId: result.messageReceiptId,
      });
    } finally {
      ref.unregister();
    }
  });
});
