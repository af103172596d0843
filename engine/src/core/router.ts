/**
 * Routing and the life of an invocation: pick a replica, forward the call, relay the result, and end the
 * invocation early on timeout or disconnect. Nothing here logs at info level or scales with the number of
 * registered functions: this is the hot path.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ErrorBody, InvocationResult, InvokeFunction, CancelReason } from '@svc/sdk';
import { EngineErrorCode, errorBody, notFoundError, stoppedError, timeoutError } from './errors.js';
import type { FunctionRegistry, Replica } from './function-registry.js';
import type { Invocation, InvocationOutcome, InvocationTable } from './invocation-table.js';
import { spliceCallerId } from './raw-frame.js';
import type { Worker } from './worker.js';

/** The function `TriggerAction.Enqueue` goes through (PROTOCOL.md §3.5). */
export const ENQUEUE_FUNCTION_ID = 'engine::queue::enqueue';
/** setTimeout's largest delay. */
const MAX_TIMEOUT_MS = 2_147_483_647;

export const NO_QUEUE_PROVIDER_MESSAGE =
  'No queue provider is installed. `TriggerAction.Enqueue` routes through the `engine::queue::enqueue` provider, ' +
  'which the svc-queue worker registers. Add the queue module (svc-queue) to the config. ' +
  '(underlying: Function engine::queue::enqueue not found)';

export interface RouterOptions {
  logger: Logger;
  /** Engine-side deadline of an invocation when the caller sent no `timeout_ms`; 0 means none. */
  invocationTimeoutMs: number;
}

export interface CallOptions {
  metadata?: unknown;
  traceparent?: string;
  baggage?: string;
  timeoutMs?: number;
}

interface Trace {
  metadata?: unknown;
  traceparent?: string;
  baggage?: string;
}

export class Router {
  constructor(
    private readonly functions: FunctionRegistry,
    private readonly table: InvocationTable,
    private readonly options: RouterOptions,
  ) {}

  /** A worker's `invokefunction` (sync, void or enqueue); `raw` is its text when it came off a socket. */
  invoke(caller: Worker, msg: InvokeFunction, raw?: string): void {
    const action = msg.action;
    if (action != null && action.type === 'enqueue') {
      this.enqueue(caller, msg, action.queue);
      return;
    }
    // A call without an invocation id cannot be answered: it is fire-and-forget whatever its action says.
    const callerInvocationId = action == null && msg.invocation_id != null ? msg.invocation_id : undefined;
    const replica = this.functions.get(msg.function_id)?.pick();
    if (replica === undefined) {
      if (callerInvocationId !== undefined) {
        caller.send(resultFrame(callerInvocationId, msg.function_id, undefined, notFoundError(msg.function_id), msg));
      }
      return;
    }
    const timeoutMs = msg.timeout_ms ?? this.options.invocationTimeoutMs;
    const waiting = callerInvocationId === undefined ? undefined : caller;
    const inject = injectsCallerId(caller, msg);
    const rawFrame = forwardable(raw, msg, inject, caller, replica.worker, callerInvocationId, this.table);
    const data =
      rawFrame !== undefined || !inject ? msg.data : withCallerId(msg.data, caller.id, caller.conn.sharesObjects);
    this.dispatch(replica, msg.function_id, data, msg, timeoutMs, waiting, callerInvocationId, undefined, rawFrame);
  }

  /** An engine-internal call; `onDone` gets exactly one outcome. */
  call(functionId: string, data: unknown, options: CallOptions, onDone: (outcome: InvocationOutcome) => void): void {
    const replica = this.functions.get(functionId)?.pick();
    if (replica === undefined) {
      onDone({ error: notFoundError(functionId) });
      return;
    }
    const timeoutMs = options.timeoutMs ?? this.options.invocationTimeoutMs;
    this.dispatch(replica, functionId, data, options, timeoutMs, undefined, undefined, onDone);
  }

  /**
   * The executor's `invocationresult`. Returns false when no such invocation is running on this worker. When the
   * caller used the same invocation id and can take raw text, the validated frame is relayed as it came.
   */
  result(executor: Worker, msg: InvocationResult, raw?: string): boolean {
    const inv = this.table.get(msg.invocation_id);
    if (inv === undefined || inv.executor !== executor) return false;
    this.table.end(inv);
    const error = msg.error ? msg.error : undefined;
    const caller = inv.caller;
    if (caller !== undefined) {
      if (raw !== undefined && inv.callerInvocationId === inv.id && caller.conn.sendRaw !== undefined) {
        if (!caller.closed) caller.conn.sendRaw(raw);
        return true;
      }
      const sent = caller.send(resultFrame(inv.callerInvocationId!, inv.functionId, msg.result, error, msg));
      if (!sent && !caller.closed) {
        // only an unencodable result (from an in-process executor) fails on an open connection
        const why = errorBody(EngineErrorCode.SerializationError, `the result of ${inv.functionId} is not valid JSON`);
        caller.send(resultFrame(inv.callerInvocationId!, inv.functionId, undefined, why, undefined));
      }
    } else if (inv.onDone !== undefined) {
      inv.onDone(error ? { error } : { result: msg.result });
    }
    return true;
  }

  /**
   * The caller gave up on a call it made (svc extension `cancelinvocation` from the caller): the invocation ends
   * and its executor is told. Nothing is sent back (the caller already failed the call itself).
   */
  cancelByCaller(caller: Worker, callerInvocationId: string): void {
    let inv = this.table.get(callerInvocationId);
    if (inv === undefined || inv.caller !== caller || inv.callerInvocationId !== callerInvocationId) {
      inv = [...caller.invocations].find((i) => i.caller === caller && i.callerInvocationId === callerInvocationId);
    }
    if (inv === undefined || !this.table.end(inv)) return;
    this.cancelExecutor(inv, 'cancelled');
  }

  /** A worker left: callers waiting on it get `invocation_stopped`; executors working for it are told to stop. */
  workerGone(worker: Worker): void {
    if (worker.invocations.size === 0) return;
    for (const inv of [...worker.invocations]) {
      if (!this.table.end(inv)) continue;
      if (inv.executor === worker) this.fail(inv, stoppedError());
      else this.cancelExecutor(inv, 'caller_disconnected');
    }
  }

  private dispatch(
    replica: Replica,
    functionId: string,
    data: unknown,
    trace: Trace,
    timeoutMs: number,
    caller: Worker | undefined,
    callerInvocationId: string | undefined,
    onDone: ((outcome: InvocationOutcome) => void) | undefined,
    rawFrame?: string,
  ): void {
    const id =
      callerInvocationId !== undefined && !this.table.has(callerInvocationId) ? callerInvocationId : randomUUID();
    const inv: Invocation = {
      id,
      functionId,
      executor: replica.worker,
      replica,
      caller,
      callerInvocationId,
      onDone,
      timeoutMs,
      timer: undefined,
    };
    this.table.add(inv);
    // 0 means no engine-side deadline (the caller's own timeout applies).
    if (timeoutMs > 0) inv.timer = setTimeout(onTimeout, Math.min(timeoutMs, MAX_TIMEOUT_MS), this, inv);
    const sent =
      rawFrame !== undefined && id === callerInvocationId
        ? replica.worker.sendRaw(rawFrame)
        : replica.worker.send({
            type: 'invokefunction',
            invocation_id: id,
            function_id: functionId,
            data,
            metadata: trace.metadata,
            traceparent: trace.traceparent,
            baggage: trace.baggage,
          });
    if (!sent && this.table.end(inv)) {
      this.fail(inv, errorBody(EngineErrorCode.ChannelSendFailed, `The worker providing ${functionId} is gone`));
    }
  }

  /** @internal called by the invocation's timer */
  timedOut(inv: Invocation): void {
    inv.timer = undefined;
    if (!this.table.end(inv)) return;
    this.options.logger.debug({ invocationId: inv.id, functionId: inv.functionId }, 'invocation timed out');
    this.fail(inv, timeoutError(inv.functionId, inv.timeoutMs));
    this.cancelExecutor(inv, 'timeout');
  }

  private fail(inv: Invocation, error: ErrorBody): void {
    if (inv.caller !== undefined) {
      inv.caller.send(resultFrame(inv.callerInvocationId!, inv.functionId, undefined, error, undefined));
    } else if (inv.onDone !== undefined) {
      inv.onDone({ error });
    }
  }

  private cancelExecutor(inv: Invocation, reason: CancelReason): void {
    if (!inv.executor.supportsCancel) return;
    inv.executor.send({ type: 'cancelinvocation', invocation_id: inv.id, reason });
  }

  private enqueue(caller: Worker, msg: InvokeFunction, queue: string): void {
    const callerInvocationId = msg.invocation_id ?? undefined;
    const reply = (result: unknown, error: ErrorBody | undefined): void => {
      if (callerInvocationId !== undefined) {
        caller.send(resultFrame(callerInvocationId, msg.function_id, result, error, undefined));
      }
    };
    if (this.functions.get(ENQUEUE_FUNCTION_ID) === undefined) {
      reply(undefined, errorBody(EngineErrorCode.EnqueueError, NO_QUEUE_PROVIDER_MESSAGE));
      return;
    }
    const messageReceiptId = randomUUID();
    const payload = {
      queue,
      function_id: msg.function_id,
      data: msg.data,
      messageReceiptId,
      traceparent: msg.traceparent ?? null,
      baggage: msg.baggage ?? null,
    };
    this.call(ENQUEUE_FUNCTION_ID, payload, { timeoutMs: msg.timeout_ms }, (outcome) => {
      if (outcome.error) reply(undefined, errorBody(EngineErrorCode.EnqueueError, outcome.error.message));
      else reply({ messageReceiptId }, undefined);
    });
  }
}

function onTimeout(router: Router, inv: Invocation): void {
  router.timedOut(inv);
}

/** The engine function that needs to know which worker called it (PROTOCOL.md §1.7). */
const WORKERS_REGISTER = 'engine::workers::register';

/**
 * PROTOCOL.md §2.12: a worker's sync and void calls carry `_caller_worker_id`. Calls from engine modules
 * (in-process) are the engine's own, like trigger-fired calls in the original, and forward `data` unchanged,
 * except to `engine::workers::register`, which needs the caller's id.
 */
function injectsCallerId(caller: Worker, msg: InvokeFunction): boolean {
  // Deliveries marked `fired_by` by a provider over a socket still carry the id: PROTOCOL.md §3.7 has the payload
  // of a provider's call gain `_caller_worker_id`, and the capability workers' tests (cron, queue) tell which
  // process delivered by it.
  return caller.conn.kind !== 'in-process' || msg.function_id === WORKERS_REGISTER;
}

/**
 * The caller's frame as text for the executor, when it can go as text: a sync call from a socket whose id the
 * executor will see unchanged, to an executor that takes raw text. When `_caller_worker_id` is due, it is spliced
 * into an object `data` that does not already carry it. Otherwise undefined (the frame is re-encoded).
 */
function forwardable(
  raw: string | undefined,
  msg: InvokeFunction,
  inject: boolean,
  caller: Worker,
  executor: Worker,
  callerInvocationId: string | undefined,
  table: InvocationTable,
): string | undefined {
  if (raw === undefined || callerInvocationId === undefined || !executor.takesRaw) return undefined;
  if (table.has(callerInvocationId)) return undefined;
  // unchanged text: the executor parses exactly what the engine validated (duplicate keys resolve the same way)
  if (!inject) return raw;
  const data = msg.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data) || '_caller_worker_id' in data) return undefined;
  return spliceCallerId(raw, caller.id);
}

/** Adds `_caller_worker_id` when `data` is an object. */
function withCallerId(data: unknown, workerId: string, copy: boolean): unknown {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return data;
  if (copy) return { ...(data as Record<string, unknown>), _caller_worker_id: workerId };
  (data as Record<string, unknown>)._caller_worker_id = workerId;
  return data;
}

function resultFrame(
  invocationId: string,
  functionId: string,
  result: unknown,
  error: ErrorBody | undefined,
  trace: { traceparent?: string; baggage?: string } | undefined,
): InvocationResult {
  const frame: InvocationResult = { type: 'invocationresult', invocation_id: invocationId, function_id: functionId };
  if (error !== undefined) frame.error = error;
  else if (result !== undefined) frame.result = result;
  if (trace?.traceparent !== undefined) frame.traceparent = trace.traceparent;
  if (trace?.baggage !== undefined) frame.baggage = trace.baggage;
  return frame;
}
