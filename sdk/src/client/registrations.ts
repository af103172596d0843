/**
 * Everything this client has registered, kept so it can be replayed on every (re)connect in the order the protocol
 * requires (docs/protocol.md, "1.5 Reconnecting"): trigger types, then functions, then triggers (with their original
 * ids). Registration frames are never queued while disconnected: the store is the source of truth.
 */
import { randomUUID } from 'node:crypto';
import type { RegisterFunction, RegisterTrigger, RegisterTriggerType, WorkerToEngine } from '../protocol.js';
import type {
  FunctionHandler,
  HttpFunctionConfig,
  RegisterFunctionOptions,
  TriggerRegistration,
  TriggerTypeHandler,
} from '../types.js';

export interface LocalFunction {
  frame: RegisterFunction;
  /** Undefined for a function the engine invokes over HTTP (`frame.invocation` is set). */
  handler: FunctionHandler | undefined;
}

export interface LocalTriggerType {
  frame: RegisterTriggerType;
  handler: TriggerTypeHandler;
}

export class Registrations {
  readonly functions = new Map<string, LocalFunction>();
  readonly triggerTypes = new Map<string, LocalTriggerType>();
  readonly triggers = new Map<string, RegisterTrigger>();

  addFunction(fn: LocalFunction): void {
    if (fn.frame.id.length === 0) throw new Error('id is required');
    if (this.functions.has(fn.frame.id)) throw new Error(`function id already registered: ${fn.frame.id}`);
    this.functions.set(fn.frame.id, fn);
  }

  addTriggerType(type: LocalTriggerType): void {
    if (type.frame.id.length === 0) throw new Error('id is required');
    // Re-registering a type replaces it, as the engine does.
    this.triggerTypes.set(type.frame.id, type);
  }

  addTrigger(frame: RegisterTrigger): void {
    this.triggers.set(frame.id, frame);
  }

  /** The frames to send after a (re)connect, in protocol order. */
  replay(): WorkerToEngine[] {
    const frames: WorkerToEngine[] = [];
    for (const t of this.triggerTypes.values()) frames.push(t.frame);
    for (const f of this.functions.values()) frames.push(f.frame);
    for (const t of this.triggers.values()) frames.push(t);
    return frames;
  }
}

/** A function as stored and sent: a local handler, or an HTTP invocation config the engine calls. */
export function localFunction(
  id: string,
  handler: FunctionHandler | HttpFunctionConfig,
  options: RegisterFunctionOptions,
): LocalFunction {
  const frame: RegisterFunction = { type: 'registerfunction', id };
  if (options.description !== undefined) frame.description = options.description;
  if (options.request_format !== undefined) frame.request_format = options.request_format;
  if (options.response_format !== undefined) frame.response_format = options.response_format;
  if (options.metadata !== undefined) frame.metadata = options.metadata;
  if (typeof handler === 'function') return { frame, handler };
  frame.invocation = handler;
  return { frame, handler: undefined };
}

/** A new trigger binding with its own id (kept for every replay). */
export function triggerFrame(trigger: TriggerRegistration): RegisterTrigger {
  const frame: RegisterTrigger = {
    type: 'registertrigger',
    id: randomUUID(),
    trigger_type: trigger.type,
    function_id: trigger.function_id,
    config: trigger.config,
  };
  if (trigger.metadata !== undefined) frame.metadata = trigger.metadata;
  return frame;
}
