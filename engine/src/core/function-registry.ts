/**
 * Functions by id, each with one replica per worker that registered it. Routing picks the replica with the fewest
 * invocations in flight, round-robin among equals. Lookups are O(1) in the number of functions; a pick scans only
 * the replicas of one function (usually one).
 */
import type { Worker } from './worker.js';

export interface FunctionInfo {
  description?: string;
  request_format?: unknown;
  response_format?: unknown;
  metadata?: unknown;
}

export interface Replica {
  readonly worker: Worker;
  info: FunctionInfo;
  inFlight: number;
  readonly registeredAtMs: number;
}

export class FunctionEntry {
  readonly replicas: Replica[] = [];
  private next = 0;

  constructor(readonly id: string) {}

  /** Least in-flight; among equals, the first at or after the round-robin cursor. */
  pick(): Replica | undefined {
    const replicas = this.replicas;
    const n = replicas.length;
    if (n === 1) return replicas[0];
    if (n === 0) return undefined;
    let best: Replica | undefined;
    let bestIndex = 0;
    for (let k = 0; k < n; k++) {
      const i = (this.next + k) % n;
      const r = replicas[i]!;
      if (best === undefined || r.inFlight < best.inFlight) {
        best = r;
        bestIndex = i;
      }
    }
    this.next = (bestIndex + 1) % n;
    return best;
  }

  /** The replica most recently registered: its description and schemas describe the function. */
  get primary(): Replica | undefined {
    return this.replicas[this.replicas.length - 1];
  }
}

export class FunctionRegistry {
  private readonly entries = new Map<string, FunctionEntry>();

  get(id: string): FunctionEntry | undefined {
    return this.entries.get(id);
  }

  get size(): number {
    return this.entries.size;
  }

  values(): IterableIterator<FunctionEntry> {
    return this.entries.values();
  }

  /** Adds or refreshes `worker`'s replica. Returns true when the id is new to the registry. */
  register(id: string, worker: Worker, info: FunctionInfo): boolean {
    let entry = this.entries.get(id);
    const isNew = entry === undefined;
    if (!entry) {
      entry = new FunctionEntry(id);
      this.entries.set(id, entry);
    }
    const existing = entry.replicas.find((r) => r.worker === worker);
    if (existing) existing.info = info;
    else entry.replicas.push({ worker, info, inFlight: 0, registeredAtMs: Date.now() });
    worker.functions.add(id);
    return isNew;
  }

  /** Removes only `worker`'s replica. Returns true when the id left the registry (no replica remains). */
  unregister(id: string, worker: Worker): boolean {
    const entry = this.entries.get(id);
    worker.functions.delete(id);
    if (!entry) return false;
    const index = entry.replicas.findIndex((r) => r.worker === worker);
    if (index === -1) return false;
    entry.replicas.splice(index, 1);
    if (entry.replicas.length > 0) return false;
    this.entries.delete(id);
    return true;
  }
}
