/**
 * What the core needs from one worker connection. The transport implements it over a WebSocket; the in-process
 * transport implements it for engine modules. The core never sees a socket, a codec or a frame's bytes.
 */
import type { EngineToWorker } from '@svc/sdk';

/**
 * A frame as the sender's transport received it, opaque to the core: handed to `receive` by a transport and
 * back to a transport's `forwardInvoke` / `relayResult`, which decide whether it can go out as it came.
 */
export type RawFrame = unknown;

/** What `forwardInvoke` did: sent as it came, could not send (closed, over its bound), or left it to the core. */
export type ForwardOutcome = 'sent' | 'failed' | 'declined';

export interface Connection {
  /**
   * Delivers one message to the worker. Returns false when it could not be queued (the connection is closed, or
   * it was just closed because its outbound buffer exceeded its bound).
   */
  send(message: EngineToWorker): boolean;
  /**
   * Optional: forwards a caller's sync `invokefunction`, received as `raw` by the caller's transport (`data` is
   * its decoded `data`), with the same invocation id, adding `_caller_worker_id: callerWorkerId` to an object
   * `data` when given (never keeping one the caller put there; it may leave that to a worker that announced appended
   * fields, docs/protocol.md 3.3). Returns `declined` when it cannot forward it
   * (the core then builds the frame and calls `send`). `trace`, when given, replaces the frame's top-level
   * `traceparent` (`previous`, the caller's, possibly absent) with `next` (a lifecycle observer's, docs/hooks.md).
   */
  forwardInvoke?(
    raw: RawFrame,
    data: unknown,
    callerWorkerId: string | undefined,
    trace?: { readonly previous: string | undefined; readonly next: string },
  ): ForwardOutcome;
  /**
   * Optional: relays an executor's `invocationresult` as it came (same invocation id on both sides). Returns
   * `declined` when it cannot (the core then re-encodes).
   */
  relayResult?(raw: RawFrame): ForwardOutcome;
  /**
   * Optional: false once the connection takes no more frames (its peer is gone or it is closing), which can be a
   * moment before the core is told it closed. A replicated function's calls go to a replica that is still open.
   */
  readonly open?: boolean;
  /** Closes the connection (used when a `reattach` evicts an old connection). Idempotent. */
  close(code?: number, reason?: string): void;
  /** Optional protocol features announced at connect (`x-svc-features`), e.g. `cancel`. */
  readonly features: ReadonlySet<string>;
  /**
   * True when message objects are shared with the other side (in-process): the core must not mutate what it
   * received, and must copy before adding fields.
   */
  readonly sharesObjects: boolean;
  /** `ws` or `in-process`; shown by introspection. */
  readonly kind: 'ws' | 'in-process';
  readonly remoteAddress?: string;
}
