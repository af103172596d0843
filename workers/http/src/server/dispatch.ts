/**
 * Runs one routed request through its functions: the condition (when the route has one) and then the bound
 * function, and classifies how it ended. The condition gets the same payload; the function runs only when the
 * condition returns a truthy value (the same rule as the SDK's fireTrigger), otherwise the request is skipped
 * (422). Errors keep the code and message the executor sent; the stack stays in `stack` for the log.
 */
import type { RouteTarget } from './route-table.js';

export interface InvokeOptions {
  timeoutMs: number;
  metadata: unknown;
}

/** How svc-http calls a function (the SDK client in production). Rejections carry `code` when they have one. */
export interface Invoker {
  invoke(functionId: string, payload: unknown, options: InvokeOptions): Promise<unknown>;
}

export type DispatchOutcome =
  | { kind: 'result'; value: unknown }
  | { kind: 'skipped' }
  | { kind: 'timeout' }
  | { kind: 'error'; code: string; message: string; stack: string | undefined; during: 'condition' | 'handler' };

const TIMEOUT_CODES = new Set(['TIMEOUT', 'invocation_timeout']);

export async function dispatch(
  invoker: Invoker,
  target: RouteTarget,
  payload: unknown,
  deadline: number,
): Promise<DispatchOutcome> {
  if (target.conditionFunctionId) {
    const condition = await call(invoker, target.conditionFunctionId, payload, target.metadata, deadline, 'condition');
    if (condition.kind !== 'result') return condition;
    if (!condition.value) return { kind: 'skipped' };
  }
  return call(invoker, target.functionId, payload, target.metadata, deadline, 'handler');
}

async function call(
  invoker: Invoker,
  functionId: string,
  payload: unknown,
  metadata: unknown,
  deadline: number,
  during: 'condition' | 'handler',
): Promise<DispatchOutcome> {
  const timeoutMs = deadline - Date.now();
  if (timeoutMs <= 0) return { kind: 'timeout' };
  try {
    return { kind: 'result', value: await invoker.invoke(functionId, payload, { timeoutMs, metadata }) };
  } catch (err) {
    const { code, message, stack } = describeError(err);
    if (TIMEOUT_CODES.has(code)) return { kind: 'timeout' };
    return { kind: 'error', code, message, stack, during };
  }
}

/** An invocation error's code, its message without the "<code>: " prefix the SDK adds, and the remote stack. */
export function describeError(err: unknown): { code: string; message: string; stack: string | undefined } {
  if (typeof err !== 'object' || err === null) return { code: 'UNKNOWN', message: String(err), stack: undefined };
  const e = err as { code?: unknown; message?: unknown; stacktrace?: unknown; stack?: unknown };
  const code = typeof e.code === 'string' && e.code.length > 0 ? e.code : 'INTERNAL_ERROR';
  let message = typeof e.message === 'string' ? e.message : 'invocation failed';
  if (message.startsWith(`${code}: `)) message = message.slice(code.length + 2);
  const stack = typeof e.stacktrace === 'string' ? e.stacktrace : typeof e.stack === 'string' ? e.stack : undefined;
  return { code, message, stack };
}
