/**
 * Runs one routed request through its functions and classifies how it ended:
 * 1. the route's middleware (`middleware_function_ids`, in order), each called with
 *    `{phase:'preHandler', request:{path_params, query_params, headers, method}, context:{}}` and answering
 *    `{action:'continue'}` or `{action:'respond', response:{status_code, headers, body}}` (which ends the request);
 * 2. the condition (when the route has one), with the same payload as the function; the function runs only when
 *    it returns a truthy value (the same rule as the SDK's fireTrigger), otherwise the request is skipped (422);
 * 3. the bound function.
 * Errors keep the code and message the executor sent; the stack stays in `stack` for the log.
 */
import type { LazyAbort } from './lazy-abort.js';
import type { RequestTracer } from './request-span.js';
import type { RouteTarget } from './route-table.js';
import { HttpErrorCode } from '../error-codes.js';
import { ClientErrorCode, ErrorCode, newUuid } from '@svc/sdk';

export interface InvokeOptions {
  timeoutMs: number;
  metadata: unknown;
  /**
   * Fires when the client went away or the deadline passed: the invocation is no longer wanted. Not read when
   * the invoker has `cancel` (the call is then cancelled by its `invocationId`).
   */
  signal: AbortSignal;
  /** The id to give the call, when the invoker cancels by id (`cancel`). */
  invocationId?: string;
  /** The request's span (W3C), parent of the call. */
  traceparent?: string;
  baggage?: string;
}

/** How svc-http calls a function (the SDK client in production). Rejections carry `code` when they have one. */
export interface Invoker {
  invoke(functionId: string, payload: unknown, options: InvokeOptions): Promise<unknown>;
  /**
   * Cancels a call made with `options.invocationId`. An invoker that has it is given an id per call instead of
   * being expected to watch `signal` (an AbortController and its listener per request cost more than a UUID).
   */
  cancel?(invocationId: string): void;
  /** Starts the span of a request, when the worker records telemetry. */
  requestSpan?: RequestTracer;
}

export type Stage = 'middleware' | 'condition' | 'handler';

export type DispatchOutcome =
  | { kind: 'result'; value: unknown }
  | { kind: 'skipped' }
  | { kind: 'timeout'; during: Stage }
  | { kind: 'error'; code: string; message: string; stack: string | undefined; during: Stage; functionId: string };

const TIMEOUT_CODES = new Set<string>([ClientErrorCode.Timeout, ErrorCode.InvocationTimeout]);

export async function dispatch(
  invoker: Invoker,
  target: RouteTarget,
  payload: HttpPayloadLike,
  deadline: number,
  unwanted: LazyAbort,
  trace?: { traceparent: string; baggage: string | undefined },
): Promise<DispatchOutcome> {
  const ctx: CallContext = { invoker, metadata: target.metadata, deadline, unwanted, trace };
  for (const id of target.middlewareFunctionIds) {
    const outcome = await runMiddleware(ctx, id, payload);
    if (outcome) return outcome;
  }
  if (target.conditionFunctionId) {
    const condition = await call(ctx, target.conditionFunctionId, payload, 'condition');
    if (condition.kind !== 'result') return condition;
    if (!condition.value) return { kind: 'skipped' };
  }
  return call(ctx, target.functionId, payload, 'handler');
}

interface CallContext {
  invoker: Invoker;
  metadata: unknown;
  deadline: number;
  unwanted: LazyAbort;
  trace: { traceparent: string; baggage: string | undefined } | undefined;
}

async function call(ctx: CallContext, functionId: string, payload: unknown, during: Stage): Promise<DispatchOutcome> {
  const timeoutMs = ctx.deadline - Date.now();
  if (timeoutMs <= 0) return { kind: 'timeout', during };
  try {
    const { unwanted, invoker } = ctx;
    const options = new CallOptions(timeoutMs, ctx.metadata, unwanted, ctx.trace);
    if (invoker.cancel === undefined)
      return { kind: 'result', value: await invoker.invoke(functionId, payload, options) };
    const invocationId = newUuid();
    options.invocationId = invocationId;
    const answer = invoker.invoke(functionId, payload, options);
    unwanted.onAbort(() => invoker.cancel?.(invocationId));
    return { kind: 'result', value: await answer };
  } catch (err) {
    return failedOutcome(err, during, functionId);
  }
}

/**
 * The options of one call. `signal` is a getter: the controller behind it exists only if the invoker reads it;
 * a class, so that no getter closure is made per call.
 */
export class CallOptions implements InvokeOptions {
  invocationId?: string;
  traceparent?: string;
  baggage?: string;

  constructor(
    readonly timeoutMs: number,
    readonly metadata: unknown,
    private readonly unwanted: LazyAbort,
    trace: { traceparent: string; baggage: string | undefined } | undefined,
  ) {
    if (trace !== undefined) {
      this.traceparent = trace.traceparent;
      if (trace.baggage !== undefined) this.baggage = trace.baggage;
    }
  }

  get signal(): AbortSignal {
    return this.unwanted.signal;
  }
}

/** How a call that threw ended: a timeout, or an error with the executor's code and message. */
export function failedOutcome(err: unknown, during: Stage, functionId: string): DispatchOutcome {
  const { code, message, stack } = describeError(err);
  if (TIMEOUT_CODES.has(code)) return { kind: 'timeout', during };
  return { kind: 'error', code, message, stack, during, functionId };
}

/** Undefined means "continue"; an outcome ends the request (a response, an error or a timeout). */
async function runMiddleware(
  ctx: CallContext,
  functionId: string,
  payload: HttpPayloadLike,
): Promise<DispatchOutcome | undefined> {
  const input = {
    phase: 'preHandler',
    request: {
      path_params: payload.path_params,
      query_params: payload.query_params,
      headers: payload.headers,
      method: payload.method,
    },
    context: {},
  };
  const outcome = await call(ctx, functionId, input, 'middleware');
  if (outcome.kind !== 'result') return outcome;
  const answer = outcome.value as { action?: unknown; response?: unknown } | null;
  if (answer && typeof answer === 'object' && answer.action === 'continue') return undefined;
  if (answer && typeof answer === 'object' && answer.action === 'respond') {
    return { kind: 'result', value: answer.response ?? {} };
  }
  return {
    kind: 'error',
    code: HttpErrorCode.InvalidResponse,
    message: `middleware '${functionId}' must return {action:'continue'} or {action:'respond', response}`,
    stack: undefined,
    during: 'middleware',
    functionId,
  };
}

interface HttpPayloadLike {
  path_params: unknown;
  query_params: unknown;
  headers: unknown;
  method: unknown;
}

/** An invocation error's code, its message without the "<code>: " prefix the SDK adds, and the remote stack. */
export function describeError(err: unknown): { code: string; message: string; stack: string | undefined } {
  if (typeof err !== 'object' || err === null)
    return { code: HttpErrorCode.Unknown, message: String(err), stack: undefined };
  const e = err as { code?: unknown; message?: unknown; stacktrace?: unknown; stack?: unknown };
  const code = typeof e.code === 'string' && e.code.length > 0 ? e.code : HttpErrorCode.InternalError;
  let message = typeof e.message === 'string' ? e.message : 'invocation failed';
  if (message.startsWith(`${code}: `)) message = message.slice(code.length + 2);
  const stack = typeof e.stacktrace === 'string' ? e.stacktrace : typeof e.stack === 'string' ? e.stack : undefined;
  return { code, message, stack };
}
