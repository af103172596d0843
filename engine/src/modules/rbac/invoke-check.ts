/**
 * The pre-dispatch check of a call made by a worker on a listener with access rules: `FORBIDDEN` when the session
 * may not call the function; the session's trigger-type rule and prefix for `engine::register_trigger`; then the
 * listener's middleware function, which runs instead of the call (it decides whether and how to call the target)
 * and whose answer is the caller's result. `engine::*` calls never go through the middleware.
 */
import type { ErrorBody, InvocationResult, InvokeFunction } from '@svc/sdk';
import type { Worker } from '../../core/worker.js';
import type { RbacHost } from './host.js';
import { checkCall, triggerTypeAllowed, withPrefix, type ListenerAccess, type Session } from './policy.js';
import { filterVisible, VISIBILITY_FILTERED } from './visibility.js';
import { ModuleErrorCode } from '../../error-codes.js';

export const FORBIDDEN = ModuleErrorCode.Forbidden;
const REGISTER_TRIGGER = 'engine::register_trigger';

export function checkInvoke(
  session: Session,
  access: ListenerAccess,
  host: RbacHost,
  worker: Worker,
  msg: InvokeFunction,
  raw: string | undefined,
): void {
  const functionId = msg.function_id;
  const metadata = access.rbac === undefined ? undefined : host.functionMetadata(functionId);
  const verdict = checkCall(session, access.rbac, functionId, metadata);
  if (!verdict.allowed) return reply(worker, msg, undefined, { code: FORBIDDEN, message: verdict.message });
  let call = msg;
  if (functionId === REGISTER_TRIGGER) {
    const scoped = scopedRegisterTrigger(session, msg);
    if ('error' in scoped) return reply(worker, msg, undefined, scoped.error);
    call = scoped.call;
    raw = undefined;
  }
  if (access.rbac !== undefined && VISIBILITY_FILTERED.has(functionId)) {
    return filterVisible(session, access.rbac, host, msg, (result, error) => reply(worker, msg, result, error));
  }
  const middleware = access.middlewareFunctionId;
  if (middleware === undefined || functionId.startsWith('engine::')) return host.deliver(worker, call, raw);
  const input = { function_id: functionId, payload: msg.data, action: msg.action ?? null, context: session.context };
  void host
    .call(middleware, input, { metadata: msg.metadata, timeoutMs: msg.timeout_ms })
    .then((outcome) => reply(worker, msg, outcome.result, outcome.error));
}

/** `engine::register_trigger` from a session: its trigger-type rule applies, and its prefix to `function_id`. */
function scopedRegisterTrigger(session: Session, msg: InvokeFunction): { call: InvokeFunction } | { error: ErrorBody } {
  const data = msg.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return { call: msg };
  const args = data as Record<string, unknown>;
  const type = args['trigger_type'];
  if (typeof type === 'string' && !triggerTypeAllowed(session, type)) {
    return { error: { code: FORBIDDEN, message: `Trigger type '${type}' is not allowed for this session.` } };
  }
  const fn = args['function_id'];
  if (typeof fn !== 'string' || session.functionRegistrationPrefix === undefined) return { call: msg };
  return { call: { ...msg, data: { ...args, function_id: withPrefix(session, fn) } } };
}

function reply(worker: Worker, msg: InvokeFunction, result: unknown, error: ErrorBody | undefined): void {
  if (msg.invocation_id == null || (msg.action != null && msg.action.type === 'void')) return;
  const frame: InvocationResult = {
    type: 'invocationresult',
    invocation_id: msg.invocation_id,
    function_id: msg.function_id,
  };
  if (error !== undefined) frame.error = error;
  else if (result !== undefined) frame.result = result;
  if (msg.traceparent !== undefined) frame.traceparent = msg.traceparent;
  if (msg.baggage !== undefined) frame.baggage = msg.baggage;
  worker.send(frame);
}
