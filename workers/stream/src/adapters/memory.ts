import type { StreamWrapperMessage } from '../messages.js';
import { wrap } from '../messages.js';
import type { UpdateOutcome } from '@svc/sdk';
import type { ChangeListener, SetResult, StreamAdapter, StreamMetadata, UpdateResult } from './types.js';
import { AdapterClosedError, StoreFullError } from './types.js';
import { DEFAULT_MAX_STORE_BYTES } from '@svc/config-kit';

/** stream → group → item → the value as a JSON string (so reads hand out copies). */
export type Items = Map<string, Map<string, Map<string, string>>>;

/**
 * `KvStore` with `store_method: in_memory`: items live in this process only and the change feed is an in-process
 * fan-out. Lost on restart. `FileStreamAdapter` extends it with persistence.
 */
export class MemoryStreamAdapter implements StreamAdapter {
  readonly name: string = 'kv(in_memory)';
  protected readonly items: Items = new Map();
  private readonly listeners = new Set<ChangeListener>();
  protected closed = false;
  /** Characters the items take (their ids and values as JSON text), held to `maxStoreChars`. */
  protected held = 0;

  /**
   * `maxStoreChars`: `max_store_bytes`. Every item lives in this process, so a write that would take the items past
   * it is refused (`stream_store_full`) rather than growing the heap until svc-stream dies, and, with the file
   * store, dies again loading them at each restart. Deletes and writes that shrink an item are always taken.
   */
  constructor(private readonly maxStoreChars = DEFAULT_MAX_STORE_BYTES) {}

  async start(): Promise<void> {}

  async get(stream: string, group: string, item: string): Promise<unknown> {
    this.assertOpen();
    const raw = this.items.get(stream)?.get(group)?.get(item);
    return raw === undefined ? undefined : JSON.parse(raw);
  }

  async set(stream: string, group: string, item: string, value: unknown) {
    this.assertOpen();
    const old = this.read(stream, group, item);
    this.write(stream, group, item, JSON.stringify(value ?? null));
    const result: SetResult = { old_value: old ?? null, new_value: value ?? null };
    const message = wrap(stream, group, item, { type: old === undefined ? 'create' : 'update', data: value ?? null });
    this.emit(message);
    return { ...result, message };
  }

  async delete(stream: string, group: string, item: string) {
    this.assertOpen();
    const old = this.read(stream, group, item);
    if (old === undefined) return { old_value: null, message: undefined };
    this.write(stream, group, item, undefined);
    const message = wrap(stream, group, item, { type: 'delete', data: old });
    this.emit(message);
    return { old_value: old, message };
  }

  async update(stream: string, group: string, item: string, apply: (current: unknown) => UpdateOutcome) {
    this.assertOpen();
    const old = this.read(stream, group, item);
    const outcome = apply(old);
    const result: UpdateResult = { old_value: old ?? null, new_value: outcome.value, errors: outcome.errors };
    // Nothing applied: the stored value stands.
    if (!outcome.changed) return { ...result, new_value: old ?? null, message: undefined };
    this.write(stream, group, item, JSON.stringify(outcome.value));
    const message = wrap(stream, group, item, { type: old === undefined ? 'create' : 'update', data: outcome.value });
    this.emit(message);
    return { ...result, message };
  }

  async list(stream: string, group: string): Promise<unknown[]> {
    this.assertOpen();
    const values = this.items.get(stream)?.get(group)?.values() ?? [];
    return [...values].map((raw) => JSON.parse(raw) as unknown);
  }

  async listGroups(stream: string): Promise<string[]> {
    this.assertOpen();
    return [...(this.items.get(stream)?.keys() ?? [])].sort();
  }

  async listAll(): Promise<StreamMetadata[]> {
    this.assertOpen();
    return [...this.items.entries()]
      .map(([id, groups]) => ({ id, groups: [...groups.keys()].sort() }))
      .sort((a, b) => a.id.localeCompare(b.id));
  }

  async publish(message: StreamWrapperMessage): Promise<void> {
    this.assertOpen();
    this.emit(message);
  }

  onMessage(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
  }

  protected assertOpen(): void {
    if (this.closed) throw new AdapterClosedError(this.name);
  }

  private read(stream: string, group: string, item: string): unknown {
    const raw = this.items.get(stream)?.get(group)?.get(item);
    return raw === undefined ? undefined : JSON.parse(raw);
  }

  /** Stores (or, with `raw` undefined, removes) one item; empty groups and streams disappear. */
  protected write(stream: string, group: string, item: string, raw: string | undefined): void {
    const old = this.items.get(stream)?.get(group)?.get(item);
    const before = old === undefined ? 0 : item.length + old.length;
    const after = raw === undefined ? 0 : item.length + raw.length;
    if (after > before && this.held - before + after > this.maxStoreChars) {
      throw new StoreFullError(this.held, this.maxStoreChars);
    }
    this.held += after - before;
    putItem(this.items, stream, group, item, raw);
  }

  private emit(message: StreamWrapperMessage): void {
    for (const listener of this.listeners) {
      try {
        listener(message);
      } catch {
        // A listener's failure must not stop delivery to the others; listeners log their own errors.
      }
    }
  }
}

export function putItem(items: Items, stream: string, group: string, item: string, raw: string | undefined): void {
  let groups = items.get(stream);
  if (raw === undefined) {
    const entries = groups?.get(group);
    if (!groups || !entries) return;
    entries.delete(item);
    if (entries.size === 0) groups.delete(group);
    if (groups.size === 0) items.delete(stream);
    return;
  }
  if (!groups) items.set(stream, (groups = new Map<string, Map<string, string>>()));
  let entries = groups.get(group);
  if (!entries) groups.set(group, (entries = new Map<string, string>()));
  entries.set(item, raw);
}
