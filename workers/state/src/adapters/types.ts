/**
 * The storage contract of svc-state. One file per backend implements it (memory.ts, file.ts, redis.ts); the
 * conformance suite (test/adapter-conformance.test.ts) runs the same cases against each, so they cannot drift.
 *
 * What an adapter owns: its storage handle (the Map, the SQLite database and its checkpoint timer, the Redis
 * connections), the atomicity of each call, and the change feed. What it does not own: input validation, size
 * limits and the wire shapes (functions.ts), and trigger delivery (triggers.ts, dispatcher.ts).
 *
 * Values cross this interface as parsed JSON; every adapter stores the serialized text, so a caller never shares a
 * mutable object with the store. Read-modify-write is atomic per (scope, key): `old_value` is exactly the value the
 * write replaced, and no other write to that key lands between the read and the write.
 *
 * The change feed: after `start()`, the listener given to `onChange` sees every change this adapter instance
 * committed, exactly once, in commit order, synchronously when the commit is known and before the write's promise
 * resolves. A failed write produces no change. Changes committed by other processes sharing the same backend
 * (Redis) are not in this feed: their own process reports them.
 *
 * `close()` is idempotent. When it resolves: no listener call will follow, writes that were acknowledged are
 * durable as far as the backend promises (file: already at commit; Redis: in Redis), timers are cleared and every
 * handle and connection is released. Calls made after `close()` reject with code `adapter_closed`.
 */
import { StateErrorCode } from '../error-codes.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export type StateEventType = 'state:created' | 'state:updated' | 'state:deleted';

export interface StateChange {
  event_type: StateEventType;
  scope: string;
  key: string;
  /** `null` when the key did not exist before (`state:created`). */
  old_value: JsonValue | null;
  /** `null` on `state:deleted`. */
  new_value: JsonValue | null;
}

export interface StateEntry {
  key: string;
  value: JsonValue;
}

export type ChangeListener = (change: StateChange) => void;

export interface WriteResult {
  /** `undefined` when the key did not exist. */
  old_value: JsonValue | undefined;
  new_value: JsonValue;
  /**
   * The replaced value's JSON text as the store kept it, `null` when the key did not exist; left out by a store that
   * keeps no text. `state::set` then answers without serialising `old_value` again.
   */
  old_json?: string | null;
}

export interface UpdateResult {
  old_value: JsonValue | undefined;
  /** The stored value after the update (`undefined` only when nothing was written and the key does not exist). */
  new_value: JsonValue | undefined;
  /** False when `mutate` declined to write (nothing stored, no change event). */
  written: boolean;
  /** Op errors reported by a store that applied the ops itself (the bridge: the remote engine applied them). */
  errors?: { op_index: number; code: string; message: string }[];
}

/**
 * Computes the new value from the current one (`undefined` = the key does not exist). Returning `undefined` writes
 * nothing. It may run more than once for one update (optimistic stores retry on conflict), so it must be pure; an
 * exception it throws rejects the update and stores nothing.
 */
export type Mutation = ((current: JsonValue | undefined) => JsonValue | undefined) & {
  /** The `state::update` ops this mutation applies, for a store that forwards them instead (the bridge). */
  readonly ops?: readonly unknown[];
};

export interface StateAdapter {
  /** Opens the store and starts the change feed. */
  start(): Promise<void>;
  get(scope: string, key: string): Promise<JsonValue | undefined>;
  /**
   * The value's JSON text as the store keeps it, or `undefined` when the key is missing: what `state::get` answers
   * with, without parsing the text and serialising the value again. Stores that keep no text leave it out.
   */
  getJson?(scope: string, key: string): Promise<string | undefined>;
  /** `json`: the JSON text of `value` when the caller has already made it (the store then does not make it again). */
  set(scope: string, key: string, value: JsonValue, json?: string): Promise<WriteResult>;
  /** Resolves the previous value, or `undefined` when there was none (then nothing changes and no event fires). */
  delete(scope: string, key: string): Promise<JsonValue | undefined>;
  update(scope: string, key: string, mutate: Mutation): Promise<UpdateResult>;
  /** Every entry of the scope, ordered by key. */
  list(scope: string): Promise<StateEntry[]>;
  /** Every scope holding at least one key, sorted, without duplicates. */
  listGroups(): Promise<string[]>;
  /** Sets the one change listener (see the file comment). */
  onChange(listener: ChangeListener): void;
  close(): Promise<void>;
}

/** An error of the store itself (I/O, connection, closed). Input errors never reach an adapter. */
export class StoreError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
    this.code = code;
  }
}

export function closedError(): StoreError {
  return new StoreError(StateErrorCode.AdapterClosed, 'the state store is closed; restart svc-state to use it again');
}
