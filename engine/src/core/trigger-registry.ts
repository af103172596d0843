/**
 * Trigger types (each with one or more provider workers) and trigger bindings. A binding is delivered to every
 * provider of its type, and to each provider that joins later; a binding whose type has no provider is pending.
 * This class only keeps the books; the core sends the frames.
 */
import type { ErrorBody } from '@svc/sdk';
import type { Worker } from './worker.js';

export interface TriggerTypeInfo {
  description?: string;
  trigger_request_format?: unknown;
  call_request_format?: unknown;
}

export interface TriggerType {
  readonly id: string;
  info: TriggerTypeInfo;
  readonly providers: Set<Worker>;
}

export interface Binding {
  readonly id: string;
  readonly triggerType: string;
  readonly functionId: string;
  readonly config: unknown;
  readonly metadata: unknown;
  /** The worker that registered it; removed with it. */
  owner: Worker;
  /** The last refusal a provider reported, until the binding is delivered again. */
  lastError: ErrorBody | undefined;
  readonly registeredAtMs: number;
}

export class TriggerRegistry {
  readonly types = new Map<string, TriggerType>();
  readonly bindings = new Map<string, Binding>();
  private readonly byType = new Map<string, Set<Binding>>();

  /** Adds `worker` as a provider. Returns true when it was not one already. */
  addProvider(typeId: string, worker: Worker, info: TriggerTypeInfo): boolean {
    let type = this.types.get(typeId);
    if (!type) {
      type = { id: typeId, info, providers: new Set() };
      this.types.set(typeId, type);
    }
    type.info = info;
    worker.triggerTypes.add(typeId);
    if (type.providers.has(worker)) return false;
    type.providers.add(worker);
    return true;
  }

  /** Removes `worker` as a provider; the type disappears with its last provider (its bindings become pending). */
  removeProvider(typeId: string, worker: Worker): boolean {
    worker.triggerTypes.delete(typeId);
    const type = this.types.get(typeId);
    if (!type || !type.providers.delete(worker)) return false;
    if (type.providers.size === 0) this.types.delete(typeId);
    return true;
  }

  providersOf(typeId: string): ReadonlySet<Worker> | undefined {
    return this.types.get(typeId)?.providers;
  }

  bindingsOf(typeId: string): ReadonlySet<Binding> {
    return this.byType.get(typeId) ?? EMPTY;
  }

  add(binding: Binding): void {
    this.remove(binding.id);
    this.bindings.set(binding.id, binding);
    let set = this.byType.get(binding.triggerType);
    if (!set) {
      set = new Set();
      this.byType.set(binding.triggerType, set);
    }
    set.add(binding);
    binding.owner.triggers.add(binding.id);
  }

  remove(id: string): Binding | undefined {
    const binding = this.bindings.get(id);
    if (!binding) return undefined;
    this.bindings.delete(id);
    const set = this.byType.get(binding.triggerType);
    set?.delete(binding);
    if (set?.size === 0) this.byType.delete(binding.triggerType);
    binding.owner.triggers.delete(id);
    return binding;
  }
}

const EMPTY: ReadonlySet<Binding> = new Set();

/** Same binding, as far as a provider is concerned (so a replay after reconnect need not be re-delivered). */
export function sameBinding(a: Binding, b: Omit<Binding, 'owner' | 'lastError' | 'registeredAtMs'>): boolean {
  return (
    a.triggerType === b.triggerType &&
    a.functionId === b.functionId &&
    JSON.stringify(a.config) === JSON.stringify(b.config) &&
    JSON.stringify(a.metadata) === JSON.stringify(b.metadata)
  );
}
