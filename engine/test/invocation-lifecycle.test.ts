/**
 * The invocation lifecycle on its own: start, then exactly one of settle, timeout, cancel or stop.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { CallRequest, InvocationOutcome } from '../src/core/call.js';
import { FunctionRegistry } from '../src/core/function-registry.js';
import { Hooks } from '../src/core/hooks.js';
import { InvocationLifecycle } from '../src/core/invocation-lifecycle.js';
import { InvocationTable } from '../src/core/invocation-table.js';
import { Worker } from '../src/core/worker.js';
import { MemoryConnection } from './memory-connection.js';

const logger = pino({ level: 'silent' });

function setup(timeoutMs = 0) {
  const table = new InvocationTable();
  const lifecycle = new InvocationLifecycle(table, new Hooks(logger), logger);
  const executorConn = new MemoryConnection(['cancel']);
  const executor = new Worker(executorConn);
  const callerConn = new MemoryConnection();
  const caller = new Worker(callerConn);
  const registry = new FunctionRegistry();
  registry.register('f', executor, {});
  const replica = registry.get('f')!.pick()!;
  const outcomes: InvocationOutcome[] = [];
  const call = (waiting: boolean, id: string = crypto.randomUUID()): CallRequest => ({
    functionId: 'f',
    data: {},
    action: undefined,
    caller: waiting ? caller : undefined,
    callerInvocationId: waiting ? id : undefined,
    metadata: undefined,
    traceparent: undefined,
    baggage: undefined,
    timeoutMs,
    onDone: waiting ? undefined : (o) => outcomes.push(o),
    injectCallerId: false,
    raw: undefined,
  });
  return { table, lifecycle, executor, executorConn, caller, callerConn, replica, call, outcomes };
}

describe('invocation lifecycle', () => {
  it('settles once: the caller gets the result, a second settle is ignored, bookkeeping is gone', () => {
    const { lifecycle, table, replica, call, callerConn, caller, executor } = setup();
    const inv = lifecycle.start(call(true, 'id-1'), replica, 'id-1');
    expect(replica.inFlight).toBe(1);
    expect(table.byCaller(caller, 'id-1')).toBe(inv);
    expect(lifecycle.settle(inv, { result: 7 })).toBe(true);
    expect(lifecycle.settle(inv, { result: 8 })).toBe(false);
    expect(callerConn.of('invocationresult')).toEqual([
      { type: 'invocationresult', invocation_id: 'id-1', function_id: 'f', result: 7 },
    ]);
    expect(table.size + replica.inFlight + caller.waiting.size + executor.executing.size).toBe(0);
    expect(table.byCaller(caller, 'id-1')).toBeUndefined();
  });

  it('times out: the caller gets invocation_timeout and the executor a cancel', async () => {
    const { lifecycle, replica, call, outcomes, executorConn } = setup(20);
    const inv = lifecycle.start(call(false), replica, 'id-2');
    await new Promise((r) => setTimeout(r, 60));
    expect(outcomes[0]?.error?.code).toBe('invocation_timeout');
    expect(executorConn.of('cancelinvocation')).toEqual([
      { type: 'cancelinvocation', invocation_id: inv.id, reason: 'timeout' },
    ]);
    expect(lifecycle.settle(inv, { result: 'late' })).toBe(false);
  });

  it('cancel ends it without an answer and tells the executor', () => {
    const { lifecycle, replica, call, callerConn, executorConn } = setup(1000);
    const inv = lifecycle.start(call(true, 'id-3'), replica, 'id-3');
    lifecycle.cancel(inv);
    lifecycle.cancel(inv);
    expect(callerConn.of('invocationresult')).toHaveLength(0);
    expect(executorConn.of('cancelinvocation')).toHaveLength(1);
  });

  it('an executor leaving stops its invocations; a caller leaving cancels the executor', () => {
    const { lifecycle, replica, call, callerConn, executorConn, executor, caller } = setup();
    lifecycle.start(call(true, 'a'), replica, 'a');
    lifecycle.start(call(true, 'b'), replica, 'b');
    lifecycle.workerGone(caller);
    expect(executorConn.of('cancelinvocation').map((c) => c.reason)).toEqual([
      'caller_disconnected',
      'caller_disconnected',
    ]);
    lifecycle.start(call(true, 'c'), replica, 'c');
    lifecycle.workerGone(executor);
    expect(callerConn.of('invocationresult').map((r) => r.error?.code)).toEqual(['invocation_stopped']);
  });
});
