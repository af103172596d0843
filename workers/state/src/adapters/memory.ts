/** `KvStore` with `store_method: in_memory`: a Map of scopes; lost when the process exits. */
import type { Logger } from 'pino';
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
} from './types.js';

export class MemoryAdapter implements StateAdapter {
  private readonly scopes = new Map<string, Map<string, string>>();
  private readonly feed: LocalFeed;
  private closed = false;

  constructor(logger?: Logger) {
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
    if (entries === undefined) {
      entries = new Map();
      this.scopes.set(scope, entries);
    }
    const previous = entries.get(key);
    entries.set(key, json);
    const old = previous === undefined ? undefined : parseStored(previous);
    this.feed.emit(changeOf(scope, key, old, value));
    return { old, text: previous };
  }

  private assertOpen(): void {
    if (this.closed) throw closedError();
  }
}
