/**
 * The life of one routed invocation: start (indexed, deadline armed, observers told), then exactly one of
 * settle (the executor answered), time out, cancel (the caller gave up) or stop (a worker left). Whichever comes
 * first ends it; the others find it gone and do nothing.
 */
import { Deadlines, MAX_TIMER_MS, type CancelReason, type ErrorBody, type InvocationResult } from '@svc/sdk/core';
import { traceIdOf, type CallRequest, type InvocationOutcome } from './call.js';
import type { RawFrame } from './connection.js';
import { EngineErrorCode, errorBody, stoppedError, timeoutError } from './errors.js';
import type { Replica } from './function-registry.js';
import { SETTLED_OK, type Hooks } from './hooks.js';
import type { Invocation, InvocationTable } from './invocation-table.js';
import type { CoreLogger } from './logger.js';

export class InvocationLifecycle {
  /**
   * Every invocation's deadline: invocations with the same timeout share one list and one Node timer, so a call
   * costs no timer of its own (its creation, its place in Node's timer lists, its removal).
   */
  private readonly deadlines = new Deadlines((id) => {
    const inv = this.table.get(id);
    if (inv !== undefined) this.timedOut(inv);
  });

  constructor(
    readonly table: InvocationTable,
    private readonly hooks: Hooks,
    private readonly logger: CoreLogger,
  ) {}

  /**
   * Starts `call` on `replica` under `id` (in the table's `slot` when the table made the id, else -1); the caller of
   * this sends the frame.
   */
  start(call: CallRequest, replica: Replica, id: string, slot: number): Invocation {
    const observed = this.hooks.startObservers.length > 0 || this.hooks.settleObservers.length > 0;
    const caller = call.callerInvocationId === undefined ? undefined : call.caller;
    const inv: Invocation = {
      id,
      slot,
      call,
      executor: replica.worker,
      replica,
      caller,
      startedAt: observed ? performance.now() : 0,
      traceparent: undefined,
      deadline: 0,
      prev: undefined,
      next: undefined,
      list: undefined,
      execPrev: undefined,
      execNext: undefined,
      waitPrev: undefined,
      waitNext: undefined,
    };
    this.table.add(inv);
    // 0 means no engine-side deadline (the caller's own timeout applies).
    if (call.timeoutMs > 0) this.deadlines.add(inv, Math.min(call.timeoutMs, MAX_TIMER_MS));
    if (this.hooks.startObservers.length > 0) {
      inv.traceparent = this.hooks.emitStarted({
        invocationId: id,
        functionId: call.functionId,
        callerWorkerId: call.caller?.id,
        executorWorkerId: replica.worker.id,
        executorWorkerName: replica.worker.name,
        traceId: traceIdOf(call.traceparent),
        traceparent: call.traceparent,
        baggage: call.baggage,
      });
    }
    return inv;
  }

  /**
   * The executor's answer. `raw` is its frame as received: relayed as it came when the caller waits under the
   * same id and its transport can relay it. Returns false when the invocation had already ended.
   */
  settle(inv: Invocation, outcome: InvocationOutcome, message?: InvocationResult, raw?: RawFrame): boolean {
    if (!this.end(inv)) return false;
    this.deliver(inv, outcome, message, raw);
    this.observeSettled(inv, outcome.error?.code ?? SETTLED_OK, outcome.error);
    return true;
  }

  /** Ends it with `error` for the caller (e.g. the executor's connection refused the frame). */
  fail(inv: Invocation, error: ErrorBody): boolean {
    return this.settle(inv, { error });
  }

  /** Its deadline passed. */
  private timedOut(inv: Invocation): void {
    if (!this.fail(inv, timeoutError(inv.call.functionId, inv.call.timeoutMs))) return;
    this.logger.debug({ invocationId: inv.id, functionId: inv.call.functionId }, 'invocation timed out');
    this.cancelExecutor(inv, 'timeout');
  }

  /** The caller gave up: ends it without an answer and tells the executor. */
  cancel(inv: Invocation): void {
    if (!this.end(inv)) return;
    this.observeSettled(inv, 'cancelled');
    this.cancelExecutor(inv, 'cancelled');
  }

  /** A worker left: callers waiting on it get `invocation_stopped`; executors working for it are told to stop. */
  workerGone(worker: Invocation['executor']): void {
    if (worker.executing.size > 0) for (const inv of [...worker.executing]) this.fail(inv, stoppedError());
    if (worker.waiting.size === 0) return;
    for (const inv of [...worker.waiting]) {
      if (this.end(inv)) {
        this.observeSettled(inv, EngineErrorCode.CallerDisconnected);
        this.cancelExecutor(inv, EngineErrorCode.CallerDisconnected);
      }
    }
  }

  /** Takes it out of the table and its deadline list. Returns false when it had already ended. */
  private end(inv: Invocation): boolean {
    if (!this.table.end(inv)) return false;
    this.deadlines.remove(inv);
    return true;
  }

  private deliver(inv: Invocation, outcome: InvocationOutcome, message?: InvocationResult, raw?: RawFrame): void {
    const caller = inv.caller;
    const call = inv.call;
    if (caller === undefined) {
      call.onDone?.(outcome);
      return;
    }
    if (caller.closed) return;
    if (raw !== undefined && call.callerInvocationId === inv.id && caller.conn.relayResult !== undefined) {
      if (caller.conn.relayResult(raw) !== 'declined') return;
    }
    const callerId = call.callerInvocationId!;
    const sent = caller.send(resultFrame(callerId, call.functionId, outcome, message));
    if (!sent && !caller.closed) {
      // only an unencodable result (from an in-process executor) fails on an open connection
      const why = errorBody(EngineErrorCode.SerializationError, `the result of ${call.functionId} is not valid JSON`);
      caller.send(resultFrame(callerId, call.functionId, { error: why }, undefined));
    }
  }

  private observeSettled(inv: Invocation, outcome: string, error?: ErrorBody): void {
    if (this.hooks.settleObservers.length === 0) return;
    this.hooks.emitSettled({
      invocationId: inv.id,
      functionId: inv.call.functionId,
      callerWorkerId: inv.call.caller?.id,
      executorWorkerId: inv.executor.id,
      traceId: traceIdOf(inv.call.traceparent),
      durationMs: inv.startedAt === 0 ? 0 : performance.now() - inv.startedAt,
      outcome,
      error,
    });
  }

  private cancelExecutor(inv: Invocation, reason: CancelReason): void {
    if (!inv.executor.supportsCancel) return;
    inv.executor.send({ type: 'cancelinvocation', invocation_id: inv.id, reason });
  }
}

/** An `invocationresult` for the caller; the trace fields of `echo` (the executor's frame) are kept. */
export function resultFrame(
  invocationId: string,
  functionId: string,
  outcome: InvocationOutcome,
  echo: { traceparent?: string; baggage?: string } | undefined,
): InvocationResult {
  const frame: InvocationResult = { type: 'invocationresult', invocation_id: invocationId, function_id: functionId };
  if (outcome.error) frame.error = outcome.error;
  else if (outcome.result !== undefined) frame.result = outcome.result;
  if (echo?.traceparent !== undefined) frame.traceparent = echo.traceparent;
  if (echo?.baggage !== undefined) frame.baggage = echo.baggage;
  return frame;
}
