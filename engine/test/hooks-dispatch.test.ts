/**
 * Dispatch middleware over in-memory connections: pass, answer, refuse, async, failure, and removal.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { CallRequest } from '../src/core/call.js';
import { EngineCore } from '../src/core/engine-core.js';
import { MemoryConnection } from './memory-connection.js';

function setup() {
  const core = new EngineCore({ logger: pino({ level: 'silent' }) });
  const exec = new MemoryConnection();
  const execWorker = core.attach(exec);
  core.receive(execWorker, { type: 'registerfunction', id: 'f' });
  const caller = new MemoryConnection();
  const callerWorker = core.attach(caller);
  const invoke = (extra: Record<string, unknown> = {}): string => {
    const id = randomUUID();
    core.receive(callerWorker, {
      type: 'invokefunction',
      invocation_id: id,
      function_id: 'f',
      data: { a: 1 },
      ...extra,
    });
    return id;
  };
  return { core, exec, execWorker, caller, callerWorker, invoke };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('dispatch middleware', () => {
  it('sees the call (function, data, caller, trace, timeout) and passes it on', () => {
    const { core, exec, callerWorker, invoke } = setup();
    const seen: CallRequest[] = [];
    core.hooks.addMiddleware((call) => {
      seen.push(call);
      return undefined;
    });
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const id = invoke({ traceparent, timeout_ms: 500 });
    expect(seen[0]).toMatchObject({
      functionId: 'f',
      callerInvocationId: id,
      traceparent,
      timeoutMs: 500,
      action: undefined,
    });
    expect(seen[0]!.caller?.id).toBe(callerWorker.id);
    expect(exec.of('invokefunction')).toHaveLength(1);
  });

  it('refuses a call: the caller gets the error, the executor sees nothing', () => {
    const { core, exec, caller, invoke } = setup();
    core.hooks.addMiddleware(() => ({ error: { code: 'forbidden', message: 'not for you' } }));
    const id = invoke();
    expect(caller.of('invocationresult')).toEqual([
      {
        type: 'invocationresult',
        invocation_id: id,
        function_id: 'f',
        error: { code: 'forbidden', message: 'not for you' },
      },
    ]);
    expect(exec.of('invokefunction')).toHaveLength(0);
    expect(core.invocations.size).toBe(0);
  });

  it('answers a call itself (e.g. forwarded elsewhere), asynchronously', async () => {
    const { core, exec, caller, invoke } = setup();
    core.hooks.addMiddleware(async (call) => ({ result: { remote: call.data } }));
    const id = invoke();
    expect(caller.of('invocationresult')).toHaveLength(0);
    await tick();
    expect(caller.of('invocationresult')[0]).toMatchObject({ invocation_id: id, result: { remote: { a: 1 } } });
    expect(exec.of('invokefunction')).toHaveLength(0);
  });

  it('runs in installation order; an async pass continues the chain, then routes', async () => {
    const { core, exec, invoke } = setup();
    const order: string[] = [];
    core.hooks.addMiddleware(async () => {
      order.push('first');
      return undefined;
    });
    core.hooks.addMiddleware(() => {
      order.push('second');
      return undefined;
    });
    invoke();
    await tick();
    expect(order).toEqual(['first', 'second']);
    expect(exec.of('invokefunction')).toHaveLength(1);
  });

  it('a throwing or rejecting middleware answers middleware_failed and the engine keeps serving', async () => {
    const { core, caller, invoke } = setup();
    const remove = core.hooks.addMiddleware(() => {
      throw new Error('boom');
    });
    invoke();
    expect(caller.of('invocationresult')[0]?.error).toEqual({
      code: 'middleware_failed',
      message: 'a dispatch middleware failed: boom',
    });
    remove();
    core.hooks.addMiddleware(() => Promise.reject(new Error('later')));
    invoke();
    await tick();
    expect(caller.of('invocationresult')[1]?.error?.code).toBe('middleware_failed');
  });

  it('once removed, no longer sees calls', () => {
    const { core, exec, invoke } = setup();
    let calls = 0;
    const remove = core.hooks.addMiddleware(() => {
      calls++;
      return undefined;
    });
    invoke();
    remove();
    invoke();
    expect(calls).toBe(1);
    expect(exec.of('invokefunction')).toHaveLength(2);
  });

  it('does not answer a caller that left while an async middleware ran', async () => {
    const { core, callerWorker, caller, invoke } = setup();
    core.hooks.addMiddleware(async () => ({ result: 1 }));
    invoke();
    core.detach(callerWorker);
    await tick();
    expect(caller.of('invocationresult')).toHaveLength(0);
  });

  it('tells callCancelled observers when a caller cancels a call a middleware is still answering', async () => {
    const { core, exec, callerWorker, invoke } = setup();
    const cancelled: unknown[] = [];
    core.hooks.addMiddleware(() => new Promise(() => undefined)); // answers later (e.g. another engine)
    core.hooks.observe({ callCancelled: (e) => cancelled.push(e) });
    const id = invoke();
    core.receive(callerWorker, { type: 'cancelinvocation', invocation_id: id, reason: 'cancelled' });
    await tick();
    expect(cancelled).toEqual([{ callerWorkerId: callerWorker.id, callerInvocationId: id }]);
    expect(exec.of('invokefunction')).toHaveLength(0);
  });
});
