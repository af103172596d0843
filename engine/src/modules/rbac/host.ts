/**
 * What the access-control module needs from the engine, implemented in engine/src/engine.ts over the core (the
 * module never imports the core itself). Calls made through `call` are the engine's own: no listener's rules
 * apply to them.
 */
import type { Logger } from 'pino';
import type { ErrorBody, Message } from '@svc/sdk';
import type { Worker } from '../../core/worker.js';

export interface CallOutcome {
  result?: unknown;
  error?: ErrorBody;
}

export interface RbacHost {
  /** Calls a function and resolves its outcome (never rejects). */
  call(functionId: string, data: unknown, options?: { metadata?: unknown; timeoutMs?: number }): Promise<CallOutcome>;
  /** The metadata the function was registered with (for `expose_functions` metadata filters). */
  functionMetadata(functionId: string): unknown;
  /** Hands a frame to the core, as if it had come straight off the socket. */
  deliver(worker: Worker, msg: Message, raw?: string): void;
  logger: Logger;
}
