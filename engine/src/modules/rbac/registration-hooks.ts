/**
 * The registration hooks (`rbac.on_function_registration_function_id`, `on_trigger_registration_function_id`,
 * `on_trigger_type_registration_function_id`): what each hook is called with, and how its answer applies. An
 * object answer accepts the registration, with any of its known fields replacing the registered ones; anything
 * else (no result, `null`, `false`, an error) refuses it.
 */
import type { RegisterFunction, RegisterTrigger, RegisterTriggerType } from '@svc/sdk';
import type { Session } from './policy.js';

type Answer = Record<string, unknown>;

function asAnswer(value: unknown): Answer | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Answer) : undefined;
}

function str(answer: Answer, key: string): string | undefined {
  const value = answer[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function functionHookInput(msg: RegisterFunction, session: Session): Answer {
  return {
    function_id: msg.id,
    description: msg.description ?? null,
    metadata: msg.metadata ?? null,
    context: session.context,
  };
}

/** The registration as the hook left it, or undefined when the hook refused it. */
export function applyFunctionHook(msg: RegisterFunction, value: unknown): RegisterFunction | undefined {
  const answer = asAnswer(value);
  if (answer === undefined) return undefined;
  const out: RegisterFunction = { ...msg, id: str(answer, 'function_id') ?? msg.id };
  const description = str(answer, 'description');
  if (description !== undefined) out.description = description;
  if (answer['metadata'] !== undefined && answer['metadata'] !== null) out.metadata = answer['metadata'];
  return out;
}

export function triggerHookInput(msg: RegisterTrigger, session: Session): Answer {
  return {
    trigger_id: msg.id,
    trigger_type: msg.trigger_type,
    function_id: msg.function_id,
    config: msg.config ?? null,
    metadata: msg.metadata ?? null,
    context: session.context,
  };
}

export function applyTriggerHook(msg: RegisterTrigger, value: unknown): RegisterTrigger | undefined {
  const answer = asAnswer(value);
  if (answer === undefined) return undefined;
  const out: RegisterTrigger = {
    ...msg,
    id: str(answer, 'trigger_id') ?? msg.id,
    trigger_type: str(answer, 'trigger_type') ?? msg.trigger_type,
    function_id: str(answer, 'function_id') ?? msg.function_id,
  };
  if (answer['config'] !== undefined) out.config = answer['config'];
  return out;
}

export function triggerTypeHookInput(msg: RegisterTriggerType, session: Session): Answer {
  return { trigger_type_id: msg.id, description: msg.description ?? '', context: session.context };
}

export function applyTriggerTypeHook(msg: RegisterTriggerType, value: unknown): RegisterTriggerType | undefined {
  const answer = asAnswer(value);
  if (answer === undefined) return undefined;
  const out: RegisterTriggerType = { ...msg, id: str(answer, 'trigger_type_id') ?? msg.id };
  const description = str(answer, 'description');
  if (description !== undefined) out.description = description;
  return out;
}
