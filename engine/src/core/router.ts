/**
 * Routing: a call (`CallRequest`) goes through the dispatch middleware, then to its action's handler or to a
 * live provider of its function (least in-flight replica). Nothing here logs at info level, allocates per
 * registered function or scans a collection: this is the hot path. With no middleware installed a call costs
 * one length check more than routing it.
 */
import type { ErrorBody, InvocationResult, InvokeFunction } from '@svc/sdk';
import type { CallOptions, CallRequest, InvocationOutcome } from './call.js';
import { traceIdOf } from './call.js';
import type { ForwardOutcome, RawFrame } from './connection.js';
import {
  callerOverloadedError,
  EngineErrorCode,
  engineOverloadedError,
  errorBody,
  notFoundError,
  overloadedError,
} from './errors.js';
import type { FunctionRegistry } from './function-registry.js';
import { SETTLED_OK, type DispatchMiddleware, type DispatchVerdict, type Hooks } from './hooks.js';
import { resultFrame, type InvocationLifecycle } from './invocation-lifecycle.js';
import type { Worker } from './worker.js';

export interface RouterOptions {
  /** Engine-side deadline of an invocation when the caller sent no `timeout_ms`; 0 means none. */
  invocationTimeoutMs: number;
  /** Functions that need to know their caller even when it is an engine module (see `injectsCallerId`). */
  namesInProcessCallerTo: ReadonlySet<string>;
  /**
   * Calls one worker may be executing at once; past it a call to it is answered `worker_overloaded` and not sent, so
   * a caller flooding a function whose handler never answers cannot grow the invocation table without bound.
   */
  maxInFlightPerWorker: number;
  /** Calls the engine may have in flight in all; past it a call is answered `engine_overloaded` and not sent. */
  maxInFlight: number;
  /**
   * Calls one connection may be waiting on at once (sent for it, not answered yet); past it its next call is answered
   * `caller_overloaded` and not sent, so one caller cannot take the whole of `maxInFlight` from the others.
   */
  maxInFlightPerCaller: number;
}

/** `max_in_flight_per_worker` by default: ~50 MB of the engine's memory for one worker's unanswered calls. */
export const DEFAULT_MAX_IN_FLIGHT_PER_WORKER = 100_000;
/** `max_in_flight` by default: ~500 MB of the engine's memory for unanswered calls in all. */
export const DEFAULT_MAX_IN_FLIGHT = 1_000_000;
/** `max_in_flight_per_caller` by default: a tenth of `max_in_flight`, so ten flooding callers fill it, not one. */
export const DEFAULT_MAX_IN_FLIGHT_PER_CALLER = 100_000;

export class Router {
  constructor(
    private readonly functions: FunctionRegistry,
    private readonly lifecycle: InvocationLifecycle,
    private readonly hooks: Hooks,
    private readonly options: RouterOptions,
  ) {}

  /**
   * A worker's `invokefunction`; `raw` is the frame as its transport received it. A worker's sync and void calls carry
   * `_caller_worker_id` (docs/protocol.md, "3.3 A synchronous call"). Calls from engine modules (in-process) are the
   * engine's own, like trigger-fired calls, and forward `data` unchanged, except to the functions named in
   * `namesInProcessCallerTo`. Deliveries marked `fired_by` by a provider over a socket still carry the id
   * (docs/protocol.md, "3.7 Providing a trigger type").
   */
  invoke(caller: Worker, msg: InvokeFunction, raw?: RawFrame): void {
    const action = msg.action ?? undefined;
    // A call without an invocation id cannot be answered: it is fire-and-forget whatever its action says.
    const callerInvocationId = action?.type === 'void' ? undefined : (msg.invocation_id ?? undefined);
    const call: CallRequest = {
      functionId: msg.function_id,
      data: msg.data,
      action,
      caller,
      callerInvocationId,
      metadata: msg.metadata,
      traceparent: msg.traceparent,
      baggage: msg.baggage,
      timeoutMs: msg.timeout_ms ?? this.options.invocationTimeoutMs,
      onDone: undefined,
      injectCallerId: caller.conn.kind !== 'in-process' || this.options.namesInProcessCallerTo.has(msg.function_id),
      raw: action === undefined ? raw : undefined,
    };
    this.dispatch(call);
  }

  /** An engine-internal call; `onDone` gets exactly one outcome. */
  call(functionId: string, data: unknown, options: CallOptions, onDone: (outcome: InvocationOutcome) => void): void {
    this.dispatch({
      functionId,
      data,
      action: undefined,
      caller: undefined,
      callerInvocationId: undefined,
      metadata: options.metadata,
      traceparent: options.traceparent,
      baggage: options.baggage,
      timeoutMs: options.timeoutMs ?? this.options.invocationTimeoutMs,
      onDone,
      injectCallerId: false,
      raw: undefined,
    });
  }

  /** Runs the middleware chain, then routes. */
  dispatch(call: CallRequest): void {
    const chain = this.hooks.middleware;
    if (chain.length === 0) this.proceed(call);
    else this.walk(call, chain, 0);
  }

  /**
   * The executor's `invocationresult`. Returns false when no such invocation is running on this worker.
   */
  result(executor: Worker, msg: InvocationResult, raw?: RawFrame): boolean {
    const inv = this.lifecycle.table.get(msg.invocation_id);
    if (inv === undefined || inv.executor !== executor) return false;
    // the frame is its own outcome (`result` / `error`): no allocation on the hot path
    return this.lifecycle.settle(inv, msg, msg, raw);
  }

  /**
   * The caller gave up on a call it made (svc extension `cancelinvocation` from the caller): the invocation ends
   * and its executor is told. Nothing is sent back (the caller already failed the call itself).
   */
  cancelByCaller(caller: Worker, callerInvocationId: string): void {
    const inv = this.lifecycle.table.byCaller(caller, callerInvocationId);
    if (inv !== undefined) this.lifecycle.cancel(inv);
    else if (this.hooks.cancelObservers.length > 0) {
      // not routed by the core: a middleware or an action handler may still be answering it
      this.hooks.emitCancelled({ callerWorkerId: caller.id, callerInvocationId });
    }
  }

  workerGone(worker: Worker): void {
    this.lifecycle.workerGone(worker);
  }

  /** Answers a call that was never routed (middleware, action handler, no provider). */
  answer(call: CallRequest, outcome: InvocationOutcome, echoTrace: boolean): void {
    const caller = call.caller;
    if (call.callerInvocationId !== undefined && caller !== undefined) {
      const echo = echoTrace ? call : undefined;
      caller.send(resultFrame(call.callerInvocationId, call.functionId, outcome, echo));
    } else if (call.onDone !== undefined) {
      call.onDone(outcome);
    }
    if (this.hooks.settleObservers.length > 0) {
      this.hooks.emitSettled({
        invocationId: undefined,
        functionId: call.functionId,
        callerWorkerId: caller?.id,
        executorWorkerId: undefined,
        traceId: traceIdOf(call.traceparent),
        durationMs: 0,
        outcome: outcome.error?.code ?? SETTLED_OK,
        error: outcome.error,
      });
    }
  }

  private walk(call: CallRequest, chain: readonly DispatchMiddleware[], from: number): void {
    for (let i = from; i < chain.length; i++) {
      let verdict: DispatchVerdict | Promise<DispatchVerdict>;
      try {
        verdict = chain[i]!(call);
      } catch (err) {
        this.answer(call, { error: middlewareError(err) }, false);
        return;
      }
      if (verdict === undefined) continue;
      if (isPromise(verdict)) {
        verdict.then(
          (v) => (v === undefined ? this.walk(call, chain, i + 1) : this.settleEarly(call, v)),
          (err: unknown) => this.settleEarly(call, { error: middlewareError(err) }),
        );
        return;
      }
      this.answer(call, verdict, true);
      return;
    }
    this.proceed(call);
  }

  private settleEarly(call: CallRequest, outcome: InvocationOutcome): void {
    if (call.caller?.closed === true) return;
    this.answer(call, outcome, true);
  }

  private proceed(call: CallRequest): void {
    const action = call.action;
    if (action !== undefined && action.type !== 'void') this.handleAction(call, action.type);
    else this.route(call);
  }

  private handleAction(call: CallRequest, actionType: string): void {
    const handler = this.hooks.actionHandler(actionType);
    if (handler === undefined) {
      const message = `no engine module handles the '${actionType}' action; the call was not made`;
      this.answer(call, { error: errorBody(EngineErrorCode.ActionUnsupported, message) }, false);
      return;
    }
    let settled = false;
    const settle = (outcome: InvocationOutcome): void => {
      if (settled) return;
      settled = true;
      this.answer(call, outcome, false);
    };
    try {
      handler(call, settle);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      settle({ error: errorBody(EngineErrorCode.ActionFailed, `the '${actionType}' action failed: ${reason}`) });
    }
  }

  private route(call: CallRequest): void {
    const replica = this.functions.get(call.functionId)?.pick();
    if (replica === undefined) {
      this.answer(call, { error: notFoundError(call.functionId) }, true);
      return;
    }
    // a call its caller waits on counts against that caller's share first: the bound is the caller's own doing
    const caller = call.caller;
    const perCaller = this.options.maxInFlightPerCaller;
    if (caller !== undefined && call.callerInvocationId !== undefined && caller.waiting.size >= perCaller) {
      this.answer(call, { error: callerOverloadedError(call.functionId, perCaller) }, true);
      return;
    }
    // the replica with the fewest calls of this function in flight: when its worker is full (all its functions' calls
    // count), the call is refused, even where another replica's worker would have room
    const executor = replica.worker;
    if (executor.executing.size >= this.options.maxInFlightPerWorker) {
      this.answer(
        call,
        { error: overloadedError(call.functionId, executor.id, this.options.maxInFlightPerWorker) },
        true,
      );
      return;
    }
    const table = this.lifecycle.table;
    if (table.size >= this.options.maxInFlight) {
      this.answer(call, { error: engineOverloadedError(call.functionId, this.options.maxInFlight) }, true);
      return;
    }
    const ownId = call.callerInvocationId;
    const sameId = ownId !== undefined && !table.has(ownId);
    const slot = sameId ? -1 : table.reserve();
    const id = sameId ? ownId : table.idOf(slot);
    const inv = this.lifecycle.start(call, replica, id, slot);
    const outcome = this.send(call, executor, id, sameId, inv.traceparent);
    if (outcome !== 'sent') {
      this.lifecycle.fail(inv, sendFailure(call, outcome));
      return;
    }
    // Nothing reads the payload once its frame is written: kept, it outlives young-generation collections while the
    // call waits for its answer and is copied and promoted (a 70 KB span batch waiting on svc-otel's answer was).
    call.data = undefined;
    call.raw = undefined;
  }

  /**
   * One `invokefunction` to the executor: the caller's frame forwarded by the transport when it can, else built.
   * `traceparent` is a start observer's replacement of the caller's (undefined: none).
   */
  private send(
    call: CallRequest,
    executor: Worker,
    id: string,
    sameId: boolean,
    traceparent: string | undefined,
  ): SendOutcome {
    if (executor.closed) return 'failed';
    const callerId = call.injectCallerId ? call.caller!.id : undefined;
    const conn = executor.conn;
    if (sameId && call.raw !== undefined && conn.forwardInvoke !== undefined) {
      const trace = traceparent === undefined ? undefined : { previous: call.traceparent, next: traceparent };
      const outcome = conn.forwardInvoke(call.raw, call.data, callerId, trace);
      if (outcome !== 'declined') return outcome;
    }
    const copy = call.caller?.conn.sharesObjects === true;
    const sent = executor.send({
      type: 'invokefunction',
      invocation_id: id,
      function_id: call.functionId,
      data: callerId === undefined ? call.data : withCallerId(call.data, callerId, copy),
      metadata: call.metadata,
      traceparent: traceparent ?? call.traceparent,
      baggage: call.baggage,
    });
    return sent ? 'sent' : 'build_failed';
  }
}

/** A send's outcome: as the transport forwarded it, or `build_failed` when the frame the core built did not go. */
type SendOutcome = Exclude<ForwardOutcome, 'declined'> | 'build_failed';

/** Why `data` cannot be written as JSON (too deep, a cycle, a BigInt), or undefined. Only on a failed send. */
function encodeProblem(data: unknown): string | undefined {
  try {
    JSON.stringify(data);
    return undefined;
  } catch (err) {
    return err instanceof RangeError ? 'nested too deeply' : (err as Error).message;
  }
}

/**
 * Why a call could not be sent. A frame the core built may fail for its data alone (nested too deeply for the
 * encoder): say so, and do not blame the executor. Otherwise the executor's connection is gone (or over its bound).
 */
function sendFailure(call: CallRequest, outcome: Exclude<SendOutcome, 'sent'>): ErrorBody {
  const problem = outcome === 'build_failed' ? encodeProblem(call.data) : undefined;
  if (problem === undefined) {
    return errorBody(EngineErrorCode.ChannelSendFailed, `The worker providing ${call.functionId} is gone`);
  }
  return errorBody(
    EngineErrorCode.SerializationError,
    `the data of this call to ${call.functionId} cannot be encoded for delivery (${problem}); nothing was sent`,
  );
}

/** Adds `_caller_worker_id` when `data` is an object (a copy when the object is shared with an in-process peer). */
function withCallerId(data: unknown, workerId: string, copy: boolean): unknown {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return data;
  if (copy) return { ...(data as Record<string, unknown>), _caller_worker_id: workerId };
  (data as Record<string, unknown>)._caller_worker_id = workerId;
  return data;
}

function isPromise(value: unknown): value is Promise<DispatchVerdict> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function middlewareError(err: unknown): ReturnType<typeof errorBody> {
  const reason = err instanceof Error ? err.message : String(err);
  return errorBody(EngineErrorCode.MiddlewareFailed, `a dispatch middleware failed: ${reason}`);
}
