/**
 * For trigger-type providers: fire one binding. When the binding's config names a `condition_function_id`, that
 * function is called first with the same payload, and the bound function runs only when the condition returned a
 * truthy value. A condition that fails (throws, times out, is missing) means "not fired" and is logged: a broken
 * condition must not fire the handler. Both calls share one trace (a new one unless the caller passed its own).
 */
import type { Logger } from 'pino';
import { newTraceparent } from '../trace-context.js';
import type { FireOptions, FireResult, TriggerBinding, TriggerRequest } from '../types.js';

interface Caller {
  readonly logger: Logger;
  trigger<T = unknown>(request: TriggerRequest): Promise<T>;
}

export function conditionFunctionId(config: unknown): string | undefined {
  if (typeof config !== 'object' || config === null) return undefined;
  const id = (config as Record<string, unknown>).condition_function_id;
  return typeof id === 'string' && id.length > 0 ? id : undefined;
}

export async function fireTrigger<T>(
  caller: Caller,
  binding: TriggerBinding,
  payload: unknown,
  options: FireOptions = {},
): Promise<FireResult<T>> {
  const traceparent = options.traceparent ?? newTraceparent();
  const conditionId = conditionFunctionId(binding.config);
  if (conditionId !== undefined) {
    let verdict: unknown;
    try {
      verdict = await caller.trigger({
        function_id: conditionId,
        payload,
        timeoutMs: options.timeoutMs,
        metadata: binding.metadata,
        traceparent,
        baggage: options.baggage,
        signal: options.signal,
        firedBy: binding.id,
      });
    } catch (err) {
      caller.logger.warn(
        { err, trigger_id: binding.id, function_id: binding.function_id, condition_function_id: conditionId },
        'trigger condition failed; not fired',
      );
      return { fired: false };
    }
    if (!verdict) return { fired: false };
  }
  const result = await caller.trigger<T>({
    function_id: binding.function_id,
    payload,
    action: options.action,
    timeoutMs: options.timeoutMs,
    metadata: binding.metadata,
    traceparent,
    baggage: options.baggage,
    signal: options.signal,
    firedBy: binding.id,
  });
  return { fired: true, result };
}
