import type { StreamWrapperMessage } from '../messages.js';
import type { UpdateOpError, UpdateOutcome } from '@svc/sdk';
import { mebibytes } from '@svc/sdk';
import { StreamErrorCode } from '../error-codes.js';

export interface SetResult {
  old_value: unknown;
  new_value: unknown;
}

export interface UpdateResult extends SetResult {
  errors: UpdateOpError[];
}

export interface StreamMetadata {
  id: string;
  groups: string[];
}

export type ChangeListener = (message: StreamWrapperMessage) => void;

/**
 * Storage of stream items plus the fan-out of change events, picked by name from the config.
 *
 * Owns: its backend (the in-memory maps, the SQLite file and its flush timer, or the Redis connections) and the
 * change feed. Values are JSON: what `get` returns is a copy, never an alias of what was stored.
 *
 * Change feed: every write (`set`, `update`, `delete` of an existing item) and every `publish` produces exactly one
 * `StreamWrapperMessage` delivered to every listener of every process sharing the backend (only this process for
 * `KvStore`; all svc-stream processes on the same Redis for `KvserverAdapter`), in commit order per item. The writer
 * gets the message back from the write so it can fire `stream` triggers locally; it must not deliver it to its
 * clients itself, because the feed already does.
 *
 * `start()` connects and resolves once the feed is live (a message published after `start()` resolves is delivered).
 * `close()` is idempotent; when it resolves, no listener is called again, pending file writes are flushed and
 * every connection and timer it owns is released. Calls after `close()` reject with `stream_adapter_closed`.
 */
export interface StreamAdapter {
  readonly name: string;
  start(): Promise<void>;
  get(stream: string, group: string, item: string): Promise<unknown>;
  set(
    stream: string,
    group: string,
    item: string,
    value: unknown,
  ): Promise<SetResult & { message: StreamWrapperMessage }>;
  /** `message` is undefined when the item did not exist (nothing is emitted then). */
  delete(
    stream: string,
    group: string,
    item: string,
  ): Promise<{ old_value: unknown; message: StreamWrapperMessage | undefined }>;
  /**
   * Applies `apply` to the current value atomically (no lost update across processes). When the outcome says
   * nothing changed, nothing is written or emitted (`message` undefined) and `new_value` is the stored value.
   */
  update(
    stream: string,
    group: string,
    item: string,
    apply: (current: unknown) => UpdateOutcome,
  ): Promise<UpdateResult & { message: StreamWrapperMessage | undefined }>;
  list(stream: string, group: string): Promise<unknown[]>;
  listGroups(stream: string): Promise<string[]>;
  listAll(): Promise<StreamMetadata[]>;
  /** Emits a message that is not stored (custom events). */
  publish(message: StreamWrapperMessage): Promise<void>;
  /** Adds a change-feed listener; returns a function that removes it. */
  onMessage(listener: ChangeListener): () => void;
  close(): Promise<void>;
}

export class AdapterClosedError extends Error {
  readonly code = StreamErrorCode.StreamAdapterClosed;
  constructor(name: string) {
    super(`the ${name} stream adapter is closed; the worker is shutting down`);
  }
}

/** A write that would take an in-process store (`KvStore`) past `max_store_bytes`. */
export class StoreFullError extends Error {
  readonly code = StreamErrorCode.StoreFull;
  constructor(held: number, max: number) {
    super(
      `svc-stream's store holds ${mebibytes(held)} of items and this write would take it past max_store_bytes ` +
        `(${mebibytes(max)}): delete items you no longer need, or raise max_store_bytes`,
    );
  }
}
