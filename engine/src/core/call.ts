/**
 * The call object: everything the router needs to know about one call, built once where the call enters the
 * engine (a worker's `invokefunction`, or an engine-internal call) and handed through dispatch middleware, action
 * handlers and routing unchanged. The core reads `raw` never: it is the caller's frame as its transport received
 * it, handed back to the executor's transport, which may forward it instead of re-encoding.
 */
import type { ErrorBody, TriggerActionWire } from '@svc/sdk';
import type { RawFrame } from './connection.js';
import type { Worker } from './worker.js';

/** What an engine-internal caller (or a middleware answering a call) gets instead of a frame. */
export interface InvocationOutcome {
  result?: unknown;
  error?: ErrorBody;
}

export interface CallRequest {
  readonly functionId: string;
  /**
   * The payload, as the caller sent it. Middleware read it, never change it (the frame may be forwarded as is).
   * The router lets go of it (and of `raw`) once the executor's frame is sent, so a call that waits long for its
   * answer does not keep its payload alive (docs/performance.md, "Payloads let go once sent").
   */
  data: unknown;
  /** `undefined` or `{type: 'void'}` are handled by the core; any other type goes to the action's handler. */
  readonly action: TriggerActionWire | undefined;
  /** The worker that made the call; undefined for engine-internal calls. */
  readonly caller: Worker | undefined;
  /** The id the caller waits on; undefined when nobody waits (void calls, calls without an id). */
  readonly callerInvocationId: string | undefined;
  readonly metadata: unknown;
  readonly traceparent: string | undefined;
  readonly baggage: string | undefined;
  /** Engine-side deadline in ms (0: none). */
  timeoutMs: number;
  /** Engine-internal callers get exactly one outcome here. */
  readonly onDone: ((outcome: InvocationOutcome) => void) | undefined;
  /**
   * True when the executor must see `_caller_worker_id` in an object `data` (docs/protocol.md, "3.3 A synchronous
   * call").
   */
  readonly injectCallerId: boolean;
  /** The caller's frame as its transport received it (opaque); undefined for re-encoded or internal calls. */
  raw: RawFrame;
}

/** Options of an engine-internal call (`EngineCore.call`). */
export interface CallOptions {
  metadata?: unknown;
  traceparent?: string;
  baggage?: string;
  timeoutMs?: number;
}

/** The 32-hex trace id of a W3C `traceparent`, when there is one. */
export function traceIdOf(traceparent: string | undefined): string | undefined {
  if (traceparent === undefined || traceparent.length < 35 || traceparent.charCodeAt(2) !== 45) return undefined;
  return traceparent.slice(3, 35);
}
