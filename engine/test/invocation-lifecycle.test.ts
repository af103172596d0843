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
    const inv = lifecycle.start(call(true, 'id-1'), replica, 'id-1', -1);
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
    const inv = lifecycle.start(call(false), replica, 'id-2', -1);
    await new Promise((r) => setTimeout(r, 60));
    expect(outcomes[0]?.error?.code).toBe('invocation_timeout');
    expect(executorConn.of('cancelinvocation')).toEqual([
      { type: 'cancelinvocation', invocation_id: inv.id, reason: 'timeout' },
    ]);
    expect(lifecycle.settle(inv, { result: 'late' })).toBe(false);
  });

  it('cancel ends it without an answer and tells the executor', () => {
    const { lifecycle, replica, call, callerConn, executorConn } = setup(1000);
    const inv = lifecycle.start(call(true, 'id-3'), replica, 'id-3', -1);
    lifecycle.cancel(inv);
    lifecycle.cancel(inv);
    expect(callerConn.of('invocationresult')).toHaveLength(0);
    expect(executorConn.of('cancelinvocation')).toHaveLength(1);
  });

  it('an executor leaving stops its invocations; a caller leaving cancels the executor', () => {
    const { lifecycle, replica, call, callerConn, executorConn, executor, caller } = setup();
    lifecycle.start(call(true, 'a'), replica, 'a', -1);
    lifecycle.start(call(true, 'b'), replica, 'b', -1);
    lifecycle.workerGone(caller);
    expect(executorConn.of('cancelinvocation').map((c) => c.reason)).toEqual([
      'caller_disconnected',
      'caller_disconnected',
    ]);
    lifecycle.start(call(true, 'c'), replica, 'c', -1);
    lifecycle.workerGone(executor);
    expect(callerConn.of('invocationresult').map((r) => r.error?.code)).toEqual(['invocation_stopped']);
  });

  it('keeps the invocations under ids it made in slots: found by id, never by an id that only reads as their slot', () => {
    const { table, lifecycle, replica, call, outcomes } = setup();
    const started = Array.from({ length: 5 }, () => {
      const slot = table.reserve();
      return lifecycle.start(call(false), replica, table.idOf(slot), slot);
    });
    expect(started.map((inv) => inv.slot)).toEqual([0, 1, 2, 3, 4]);
    for (const inv of started) {
      expect(inv.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(table.get(inv.id)).toBe(inv);
      expect(table.get(inv.id.toUpperCase())).toBeUndefined(); // another string: a Map key would differ too
    }
    const second = started[1]!;
    // a caller's own id that names slot 1 with other random digits is another invocation, kept in the Map
    const lookalike = `${second.id.slice(0, 9)}${second.id[9] === 'a' ? 'b' : 'a'}${second.id.slice(10)}`;
    expect(table.has(lookalike)).toBe(false);
    const callers = lifecycle.start(call(true, lookalike), replica, lookalike, -1);
    expect(table.get(lookalike)).toBe(callers);
    expect(table.get(second.id)).toBe(second);
    expect(table.size).toBe(6);
    expect([...table.values()].length).toBe(6);
    // an answer ends it once; its slot is reused by the next id the table makes, under a new id
    expect(lifecycle.settle(second, { result: 1 })).toBe(true);
    expect(lifecycle.settle(second, { result: 2 })).toBe(false);
    expect(outcomes).toEqual([{ result: 1 }]);
    expect(table.get(second.id)).toBeUndefined();
    const slot = table.reserve();
    expect(slot).toBe(1);
    const reused = lifecycle.start(call(false), replica, table.idOf(slot), slot);
    expect(reused.id).not.toBe(second.id);
    expect(table.get(reused.id)).toBe(reused);
    expect(table.get(second.id)).toBeUndefined();
    expect(table.get(lookalike)).toBe(callers);
    for (const inv of [...table.values()]) lifecycle.settle(inv, { result: null });
    expect(table.size).toBe(0);
  });

  it('lets the slots of a burst go once its last invocation ended', () => {
    const { table, lifecycle, replica, call } = setup();
    const burst = Array.from({ length: 3000 }, () => {
      const slot = table.reserve();
      return lifecycle.start(call(false), replica, table.idOf(slot), slot);
    });
    expect(table.reserve()).toBe(3000);
    table.end(lifecycle.start(call(false), replica, table.idOf(3000), 3000));
    for (const inv of burst.slice(0, 2999)) lifecycle.settle(inv, { result: null });
    expect(table.reserve()).toBe(2998); // freed slots are reused while one of the burst is still out
    table.end(lifecycle.start(call(false), replica, table.idOf(2998), 2998));
    lifecycle.settle(burst[2999]!, { result: null });
    expect(table.size).toBe(0);
    expect(table.reserve()).toBe(0);
  });
});
