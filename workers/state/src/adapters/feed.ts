/** The in-process change feed shared by the memory and file stores: one listener, called in commit order. */
import type { Logger } from 'pino';
import type { ChangeListener, JsonValue, StateChange } from './types.js';

export class LocalFeed {
  private listener: ChangeListener | undefined;

  constructor(private readonly logger?: Logger) {}

  set(listener: ChangeListener): void {
    this.listener = listener;
  }

  clear(): void {
    this.listener = undefined;
  }

  /** Delivers synchronously. A listener failure is logged, never turned into a failed write (it committed). */
  emit(change: StateChange): void {
    const listener = this.listener;
    if (listener === undefined) return;
    try {
      listener(change);
    } catch (err) {
      this.logger?.error({ err }, 'state change listener failed');
    }
  }
}

/** The change of a write that replaced `old` (undefined = missing) with `next` (undefined = deleted). */
export function changeOf(
  scope: string,
  key: string,
  old: JsonValue | undefined,
  next: JsonValue | undefined,
): StateChange {
  const event_type = next === undefined ? 'state:deleted' : old === undefined ? 'state:created' : 'state:updated';
  return { event_type, scope, key, old_value: old ?? null, new_value: next ?? null };
}

/** Parses text this store wrote itself (it was produced by JSON.stringify of a validated value). */
export function parseStored(text: string): JsonValue {
  return JSON.parse(text) as JsonValue;
}

export function byKey<T extends { key: string }>(a: T, b: T): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}
