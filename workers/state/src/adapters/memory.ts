/**
 * `KvStore` with `store_method: in_memory`: a Map of scopes; lost when the process exits. It counts what its entries
 * hold (scope, key and value text, `ENTRY_CHARS` each) and refuses a write that would take that past `maxChars`
 * (`max_store_bytes`), so a worker that keeps writing new keys gets `store_full` instead of running svc-state out of
 * memory. Deletes, and writes that leave an entry no larger, are always taken.
 */
import type { Logger } from 'pino';
import { mebibytes } from '@svc/sdk';
import { DEFAULT_MAX_STORE_BYTES } from '@svc/config-kit';
import { StateErrorCode } from '../error-codes.js';
import { byKey, changeOf, LocalFeed, parseStored } from './feed.js';
import {
  closedError,
  type ChangeListener,
  type JsonValue,
  type Mutation,
  type StateAdapter,
  type StateEntry,
  type UpdateResult,
  type WriteResult,
  StoreError,
} from './types.js';

/** Characters counted for an entry besides its scope, key and value: its place in the maps. */
const ENTRY_CHARS = 64;

const entryChars = (scope: string, key: string, text: string): number =>
  ENTRY_CHARS + scope.length + key.length + text.length;

export class MemoryAdapter implements StateAdapter {
  private readonly scopes = new Map<string, Map<string, string>>();
  private readonly feed: LocalFeed;
  private closed = false;
  /** Characters the entries hold (`entryChars`). */
  private held = 0;

  constructor(
    logger?: Logger,
    private readonly maxChars = DEFAULT_MAX_STORE_BYTES,
  ) {
    this.feed = new LocalFeed(logger);
  }

  async start(): Promise<void> {}

  async get(scope: string, key: string): Promise<JsonValue | undefined> {
    this.assertOpen();
    return this.read(scope, key);
  }

  async getJson(scope: string, key: string): Promise<string | undefined> {
    this.assertOpen();
    return this.scopes.get(scope)?.get(key);
  }

  async set(scope: string, key: string, value: JsonValue, json?: string): Promise<WriteResult> {
    this.assertOpen();
    const previous = this.write(scope, key, value, json);
    return { old_value: previous.old, new_value: value, old_json: previous.text ?? null };
  }

  async delete(scope: string, key: string): Promise<JsonValue | undefined> {
    this.assertOpen();
    const entries = this.scopes.get(scope);
    const text = entries?.get(key);
    if (entries === undefined || text === undefined) return undefined;
    entries.delete(key);
    this.held -= entryChars(scope, key, text);
    if (entries.size === 0) this.scopes.delete(scope);
    const old = parseStored(text);
    this.feed.emit(changeOf(scope, key, old, undefined));
    return old;
  }

  async update(scope: string, key: string, mutate: Mutation): Promise<UpdateResult> {
    this.assertOpen();
    // Read, mutate and write without an await in between: that is what makes it atomic here.
    const current = this.read(scope, key);
    const next = mutate(current);
    if (next === undefined) return { old_value: current, new_value: current, written: false };
    this.write(scope, key, next);
    return { old_value: current, new_value: next, written: true };
  }

  async list(scope: string): Promise<StateEntry[]> {
    this.assertOpen();
    const entries = [...(this.scopes.get(scope) ?? new Map<string, string>())];
    return entries.map(([key, text]) => ({ key, value: parseStored(text) })).sort(byKey);
  }

  async listGroups(): Promise<string[]> {
    this.assertOpen();
    return [...this.scopes.keys()].sort();
  }

  onChange(listener: ChangeListener): void {
    this.feed.set(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.feed.clear();
    this.scopes.clear();
    this.held = 0;
  }

  private read(scope: string, key: string): JsonValue | undefined {
    const text = this.scopes.get(scope)?.get(key);
    return text === undefined ? undefined : parseStored(text);
  }

  /** Stores `value` and emits the change; returns the replaced value and its text (both undefined if none). */
  private write(
    scope: string,
    key: string,
    value: JsonValue,
    json = JSON.stringify(value),
  ): { old: JsonValue | undefined; text: string | undefined } {
    let entries = this.scopes.get(scope);
    const previous = entries?.get(key);
    const grows = entryChars(scope, key, json) - (previous === undefined ? 0 : entryChars(scope, key, previous));
    if (grows > 0 && this.held + grows > this.maxChars) {
      throw new StoreError(
        StateErrorCode.StoreFull,
        `svc-state's in-memory store holds ${mebibytes(this.held)} of entries and this write would take it past ` +
          `max_store_bytes (${mebibytes(this.maxChars)}): delete entries you no longer need, or raise max_store_bytes`,
      );
    }
    if (entries === undefined) {
      entries = new Map();
      this.scopes.set(scope, entries);
    }
    entries.set(key, json);
    this.held += grows;
    const old = previous === undefined ? undefined : parseStored(previous);
    this.feed.emit(changeOf(scope, key, old, value));
    return { old, text: previous };
  }

  private assertOpen(): void {
    if (this.closed) throw closedError();
  }
}
