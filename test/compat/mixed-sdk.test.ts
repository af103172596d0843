/**
 * Mixed pairs: our SDK calling an iii-sdk@0.22.1 worker and the reverse, plus the cancellation extension: when a
 * caller times out or goes away, an executor on our SDK sees its handler's AbortSignal fire (an iii-sdk worker is
 * never sent the extra frame; engine-bad-input covers that on the wire).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerWorker as registerIii, type IIIClient } from 'iii-sdk';
import { registerWorker, type SvcClient } from '@svc/sdk';
import pino from 'pino';
import { spawnWorker, startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';

// spawns real processes: generous limits for a loaded machine (the assertions carry the real bounds)
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let engine: EngineProcess;
let iiiExecutor: Child;
let ours: SvcClient;
let iii: IIIClient;
const aborted: string[] = [];

beforeAll(async () => {
  engine = await startEngine();
  iiiExecutor = spawnWorker('test/compat/fixtures/iii-worker.mjs', { SVC_URL: engine.url, FN_PREFIX: 'legacy' });
  ours = registerWorker(engine.url, { workerName: 'ours', logger: pino({ level: 'silent' }) });
  ours.registerFunction('ours::echo', (payload: unknown) => ({ echo: payload }));
  ours.registerFunction('ours::fail', () => {
    throw new Error('boom from our sdk');
  });
  ours.registerFunction('ours::wait', (_payload: unknown, ctx) => {
    return new Promise((_resolve, reject) => {
      ctx.signal.addEventListener('abort', () => {
        aborted.push(String((ctx.signal.reason as Error | undefined)?.message ?? ctx.signal.reason));
        reject(new Error('aborted'));
      });
    });
  });
  iii = registerIii(engine.url, { otel: { enabled: false }, workerName: 'iii-caller' });
  await Promise.all([ours.ready(), iiiExecutor.waitForOutput(/ready /)]);
});

afterAll(async () => {
  await Promise.all([ours?.shutdown(), iii?.shutdown()]);
  await iiiExecutor?.kill();
  await engine?.stop();
});

describe('our SDK → iii-sdk worker', () => {
  it('gets the result, the handler error with its stack, and function_not_found', async () => {
    const result = await ours.trigger<{ echo: { a: number } }>({ function_id: 'legacy::echo', payload: { a: 1 } });
    expect(result.echo.a).toBe(1);
    const err = await ours.trigger({ function_id: 'legacy::fail', payload: {} }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'invocation_failed', stacktrace: expect.stringContaining('boom from iii-sdk') });
    const missing = await ours.trigger({ function_id: 'legacy::nope' }).catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: 'function_not_found' });
  });
});

describe('iii-sdk → our SDK worker', () => {
  it('gets the result and the handler error', async () => {
    const result = (await iii.trigger({ function_id: 'ours::echo', payload: { b: 2 } })) as { echo: { b: number } };
    expect(result.echo.b).toBe(2);
    const err = await iii.trigger({ function_id: 'ours::fail', payload: {} }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'invocation_failed' });
    expect((err as Error).message).toContain('boom from our sdk');
  });
});

describe('cancellation reaches our SDK executor', () => {
  it('when the caller times out (timeout_ms), the handler signal fires', async () => {
    const before = aborted.length;
    const err = await ours.trigger({ function_id: 'ours::wait', payload: {}, timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    await waitFor(() => aborted.length > before, 2000, 'the abort');
  });

  it('when the caller disconnects, the handler signal fires', async () => {
    const before = aborted.length;
    const caller = registerIii(engine.url, { otel: { enabled: false }, workerName: 'leaver' });
    const pending = caller.trigger({ function_id: 'ours::wait', payload: {} }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 200));
    await caller.shutdown();
    await pending;
    await waitFor(() => aborted.length > before, 2000, 'the abort');
  });

  it('when the caller aborts its call (trigger({ signal })), the handler signal fires', async () => {
    const before = aborted.length;
    const controller = new AbortController();
    const pending = ours
      .trigger({ function_id: 'ours::wait', payload: {}, signal: controller.signal })
      .catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 150));
    controller.abort();
    expect(await pending).toMatchObject({ code: 'cancelled' });
    await waitFor(() => aborted.length > before, 2000, 'the abort');
  });
});
