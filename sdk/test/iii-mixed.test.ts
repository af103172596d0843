/**
 * Mixed pairs through the real engine: our SDK calling a real iii-sdk@0.22.1 worker, an iii-sdk client calling
 * our SDK's functions, and trigger-type providers across the two.
 */
import { registerWorker as registerIiiWorker, type IIIClient } from 'iii-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnWorker, startEngine, waitFor, type Child, type EngineProcess } from '../../test/harness.js';
import {
  InvocationError,
  TriggerAction,
  type HandlerContext,
  type SvcClient,
  type TriggerBinding,
} from '../src/index.js';
import { barrier, connect, deferred, shutdownAll } from './support.js';

let engine: EngineProcess;
let iiiWorker: Child;
let ours: SvcClient;
let iiiCaller: IIIClient;
const bindings = new Map<string, TriggerBinding>();

function iiiClient(name: string): IIIClient {
  return registerIiiWorker(engine.url, { otel: { enabled: false }, workerName: name });
}

beforeAll(async () => {
  engine = await startEngine({ bare: true });
  ours = connect(engine.url, 'mixed-ours');
  ours.registerTriggerType(
    { id: 'mixed-ours-type', description: 'provided by our SDK' },
    {
      registerTrigger: (b) => void bindings.set(b.id, b),
      unregisterTrigger: (b) => void bindings.delete(b.id),
    },
  );
  await ours.ready();
  await barrier(ours);
  iiiWorker = spawnWorker('sdk/test/fixtures/iii-worker.mjs', {
    SVC_URL: engine.url,
    PROVIDE_TYPE: 'mixed-iii-type',
    BIND_TYPE: 'mixed-ours-type',
  });
  await iiiWorker.waitForOutput('ready');
  iiiCaller = iiiClient('mixed-iii-caller');
});

afterAll(async () => {
  await iiiCaller?.shutdown();
  await shutdownAll();
  await iiiWorker?.stop();
  await engine?.stop();
});

describe('our SDK calling an iii-sdk worker', () => {
  it('gets results (with the metadata sidecar), errors with their stack, and void calls', async () => {
    await expect(
      ours.trigger({ function_id: 'mixed-iii::echo', payload: { a: 1 }, metadata: { m: 2 } }),
    ).resolves.toMatchObject({ echo: { a: 1 }, metadata: { m: 2 } });
    const err = (await ours
      .trigger({ function_id: 'mixed-iii::fail', payload: {} })
      .catch((e) => e)) as InvocationError;
    expect(err).toBeInstanceOf(InvocationError);
    expect(err.code).toBe('invocation_failed');
    expect(err.stacktrace).toContain('boom from iii-sdk');
    await ours.trigger({ function_id: 'mixed-iii::echo', payload: { v: 'void' }, action: TriggerAction.Void() });
    await iiiWorker.waitForOutput('echo-called {"v":"void"', 3000);
  });

  it('a timed-out call leaves the iii-sdk worker working (it is never sent the cancel extension)', async () => {
    await expect(
      ours.trigger({ function_id: 'mixed-iii::slow', payload: { ms: 400 }, timeoutMs: 100 }),
    ).rejects.toMatchObject({
      code: 'TIMEOUT',
    });
    await new Promise((r) => setTimeout(r, 400));
    await expect(ours.trigger({ function_id: 'mixed-iii::echo', payload: 1 })).resolves.toMatchObject({ echo: 1 });
  });

  it('binds a trigger to a type an iii-sdk worker provides; the provider fires our function', async () => {
    const fired = deferred<unknown>();
    ours.registerFunction('mixed-ours::on-fire', (p: unknown) => {
      fired.resolve(p);
      return { ok: true };
    });
    const ref = ours.registerTrigger({ type: 'mixed-iii-type', function_id: 'mixed-ours::on-fire', config: {} });
    await expect(fired.promise).resolves.toMatchObject({ fired: ref.id });
    await iiiWorker.waitForOutput('fired {"ok":true}', 3000);
  });
});

describe('an iii-sdk client calling our SDK worker', () => {
  it('gets results, undefined for no result, and invocation_failed with our stack', async () => {
    ours.registerFunction('mixed-ours::echo', (p: unknown, ctx: HandlerContext) => ({
      got: p,
      metadata: ctx.metadata,
    }));
    ours.registerFunction('mixed-ours::nothing', () => undefined);
    ours.registerFunction('mixed-ours::fail', () => {
      throw new Error('boom from our sdk');
    });
    await barrier(ours);
    await expect(
      iiiCaller.trigger({ function_id: 'mixed-ours::echo', payload: { b: 2 }, metadata: { m: 3 } }),
    ).resolves.toMatchObject({ got: { b: 2 }, metadata: { m: 3 } });
    await expect(iiiCaller.trigger({ function_id: 'mixed-ours::nothing', payload: {} })).resolves.toBeUndefined();
    const err = (await iiiCaller.trigger({ function_id: 'mixed-ours::fail', payload: {} }).catch((e) => e)) as {
      code: string;
      stacktrace?: string;
    };
    expect(err.code).toBe('invocation_failed');
    expect(err.stacktrace).toContain('boom from our sdk');
  });

  it("our handler's signal fires when the iii-sdk caller disconnects", async () => {
    const started = deferred<void>();
    const aborted = deferred<string>();
    ours.registerFunction('mixed-ours::wait', (_p: unknown, ctx: HandlerContext) => {
      started.resolve();
      ctx.signal.addEventListener('abort', () => aborted.resolve((ctx.signal.reason as InvocationError).code));
      return new Promise(() => undefined);
    });
    await barrier(ours);
    const leaving = iiiClient('mixed-iii-leaving');
    void leaving.trigger({ function_id: 'mixed-ours::wait', payload: {} }).catch(() => undefined);
    await started.promise;
    await leaving.shutdown();
    await expect(aborted.promise).resolves.toBe('caller_disconnected');
  });

  it('an iii-sdk worker binds to a type our SDK provides, and fireTrigger runs its function', async () => {
    await waitFor(() => [...bindings.values()].find((b) => b.function_id === 'mixed-iii::echo'), 5000, 'iii binding');
    const binding = [...bindings.values()].find((b) => b.function_id === 'mixed-iii::echo') as TriggerBinding;
    expect(binding.config).toEqual({ from: 'iii' });
    await expect(ours.fireTrigger(binding, { via: 'fireTrigger' })).resolves.toMatchObject({
      fired: true,
      result: { echo: { via: 'fireTrigger' } },
    });
  });
});
