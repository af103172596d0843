/**
 * What the core needs from one worker connection. The transport implements it over a WebSocket; the in-process
 * transport implements it for engine modules. The core never sees a socket.
 */
import type { EngineToWorker } from '@svc/sdk';

export interface Connection {
  /**
   * Delivers one message to the worker. Returns false when it could not be queued (the connection is closed, or
   * it was just closed because its outbound buffer exceeded its bound).
   */
  send(message: EngineToWorker): boolean;
  /**
   * Optional: delivers an already-encoded frame (a result relayed verbatim, saving a re-encode on the hot path).
   * Only called with text the engine decoded and validated itself.
   */
  sendRaw?(text: string): boolean;
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
