/**
 * Against the real engine: a handler's AbortSignal fires when its caller times out or goes away, and
 * `context.trigger` carries the W3C trace onward.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EngineProcess } from '../../test/harness.js';
import { parseTraceparent, type HandlerContext, type SvcClient } from '../src/index.js';
import { barrier, connect, deferred, shutdownAll } from './support.js';

let engine: EngineProcess;
let exec: SvcClient;
let caller: SvcClient;

beforeAll(async () => {
  engine = await startEngine({ bare: true });
  exec = connect(engine.url, 'cancel-exec');
  caller = connect(engine.url, 'cancel-caller');
  await Promise.all([exec.ready(), caller.ready()]);
});

afterAll(async () => {
  await shutdownAll();
  await engine?.stop();
});

/** Registers `id` as a handler that waits for its signal and reports the abort reason. */
function abortable(id: string) {
  const started = deferred<void>();
  const aborted = deferred<{ code: string; name: string }>();
  exec.registerFunction(id, (_p: unknown, ctx: HandlerContext) => {
    started.resolve();
    return new Promise((resolve) => {
      ctx.signal.addEventListener('abort', () => {
        const reason = ctx.signal.reason as { code: string; name: string };
        aborted.resolve({ code: reason.code, name: reason.name });
        resolve('late');
      });
    });
  });
  return { started: started.promise, aborted: aborted.promise };
}

describe('cancellation', () => {
  it("fires the executor's signal when the caller's deadline passes", async () => {
    const h = abortable('cancel::timeout');
    await barrier(exec);
    const call = caller.trigger({ function_id: 'cancel::timeout', payload: {}, timeoutMs: 300 });
    await h.started;
    await expect(call).rejects.toMatchObject({ code: 'TIMEOUT' });
    await expect(h.aborted).resolves.toEqual({ code: 'timeout', name: 'AbortError' });
  });

  it("fires the executor's signal when the caller disconnects", async () => {
    const h = abortable('cancel::gone');
    await barrier(exec);
    const leaving = connect(engine.url, 'cancel-leaving');
    await leaving.ready();
    const call = leaving.trigger({ function_id: 'cancel::gone', payload: {} }).catch((e: unknown) => e);
    await h.started;
    await leaving.shutdown();
    await expect(call).resolves.toMatchObject({ code: 'client_shutdown', function_id: 'cancel::gone' });
    await expect(h.aborted).resolves.toEqual({ code: 'caller_disconnected', name: 'AbortError' });
  });

  it("cancels a call by its invocation id: the caller's promise rejects and the executor's signal fires", async () => {
    const h = abortable('cancel::by-id');
    await barrier(exec);
    const id = randomUUID();
    const call = caller
      .trigger({ function_id: 'cancel::by-id', payload: {}, invocationId: id, timeoutMs: 5000 })
      .catch((e: unknown) => e);
    await h.started;
    expect(caller.cancel(id)).toBe(true);
    await expect(call).resolves.toMatchObject({ code: 'cancelled', function_id: 'cancel::by-id' });
    await expect(h.aborted).resolves.toMatchObject({ name: 'AbortError' });
    expect(caller.cancel(id)).toBe(false); // no longer pending
  });

  it('aborts running handlers on shutdown', async () => {
    const own = connect(engine.url, 'cancel-own');
    const started = deferred<AbortSignal>();
    own.registerFunction('cancel::own', (_p: unknown, ctx: HandlerContext) => {
      started.resolve(ctx.signal);
      return new Promise(() => undefined);
    });
    await barrier(own);
    void caller.trigger({ function_id: 'cancel::own', payload: {}, timeoutMs: 5000 }).catch(() => undefined);
    const signal = await started.promise;
    expect(signal.aborted).toBe(false);
    await own.shutdown();
    expect(signal.aborted).toBe(true);
  });
});

describe('trace context', () => {
  const PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

  it('context.trigger carries the invocation traceparent (the engine span of the call) and baggage on', async () => {
    const seen: { traceparent?: string; baggage?: string }[] = [];
    exec.registerFunction('trace::leaf', (_p: unknown, ctx: HandlerContext) => {
      seen.push({ traceparent: ctx.traceparent, baggage: ctx.baggage });
      return 'leaf';
    });
    exec.registerFunction('trace::mid', async (_p: unknown, ctx: HandlerContext) => {
      await ctx.trigger({ function_id: 'trace::leaf', payload: {} });
      await ctx.trigger({ function_id: 'trace::leaf', payload: {} });
      return ctx.traceparent;
    });
    await barrier(exec);
    const midSaw = await caller.trigger({
      function_id: 'trace::mid',
      payload: {},
      traceparent: PARENT,
      baggage: 'k=v',
    });
    expect(midSaw).toBe(PARENT);
    expect(seen).toHaveLength(2);
    const spans = seen.map((s) => parseTraceparent(s.traceparent));
    for (const s of spans) expect(s?.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    // no observability module in this engine: nothing rewrites the parent, so both calls name the caller's span
    for (const s of spans) expect(s?.spanId).toBe('b7ad6b7169203331');
    expect(seen[0]?.baggage).toBe('k=v');
  });

  it('starts one new trace for an invocation that came without one', async () => {
    const seen: (string | undefined)[] = [];
    exec.registerFunction('trace::leaf2', (_p: unknown, ctx: HandlerContext) => {
      seen.push(ctx.traceparent);
    });
    exec.registerFunction('trace::root', async (_p: unknown, ctx: HandlerContext) => {
      await ctx.trigger({ function_id: 'trace::leaf2', payload: {} });
      await ctx.trigger({ function_id: 'trace::leaf2', payload: {} });
    });
    await barrier(exec);
    await caller.trigger({ function_id: 'trace::root', payload: {} });
    const [a, b] = seen.map((tp) => parseTraceparent(tp));
    expect(a?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(b?.traceId).toBe(a?.traceId);
  });
});
