/**
 * Functions by id, each with one replica per worker that registered it. Routing picks the replica with the fewest
 * invocations in flight, round-robin among equals. Lookups are O(1) in the number of functions; a pick scans only
 * the replicas of one function (usually one).
 *
 * Memory: an engine may hold tens of thousands of functions, nearly all with one replica. Such a function is stored
 * as that replica alone (a `Replica` is also the `FunctionEntry` of its id); a `ReplicaSet` takes its place only
 * while two or more workers provide the id. A replica is one flat record of what its registration described
 * (nothing else of the frame is kept), and the request and response schemas are kept as their JSON text, a
 * fraction of the size of the parsed object tree: only introspection reads them, and parses them again.
 */
import type { Worker } from './worker.js';

export interface FunctionInfo {
  description?: string;
  request_format?: unknown;
  response_format?: unknown;
  metadata?: unknown;
}

/** A function as routing and introspection see it: one replica, or a set of them. */
export interface FunctionEntry {
  readonly id: string;
  /** The replicas in registration order (a new array: for views, not for routing). */
  readonly replicas: readonly Replica[];
  readonly replicaCount: number;
  /** The replica registered last: its description and schemas describe the function. */
  readonly primary: Replica;
  /** Least in-flight; among equals, the first at or after the round-robin cursor. */
  pick(): Replica;
}

/**
 * JSON text in one flat string: V8's JSON.stringify returns a tree of joined parts (cons strings) for longer
 * results, which would keep several objects per schema alive; copying through a buffer stores it as one string.
 */
function toJson(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return Buffer.from(JSON.stringify(value), 'utf8').toString('utf8');
}

const fromJson = (text: string | undefined): unknown => (text === undefined ? undefined : JSON.parse(text));

/** One worker's registration of a function (and the whole entry of a function only it provides). */
export class Replica implements FunctionEntry {
  inFlight = 0;
  description: string | undefined;
  /** `request_format` as JSON text (`requestFormat()` parses it). */
  requestFormatJson: string | undefined;
  /** `response_format` as JSON text (`responseFormat()` parses it). */
  responseFormatJson: string | undefined;
  /** Read on every call by access checks: kept as sent. */
  metadata: unknown;

  constructor(
    readonly id: string,
    readonly worker: Worker,
    info: FunctionInfo,
  ) {
    this.description = info.description;
    this.requestFormatJson = toJson(info.request_format);
    this.responseFormatJson = toJson(info.response_format);
    this.metadata = info.metadata;
  }

  describe(info: FunctionInfo): void {
    this.description = info.description;
    this.requestFormatJson = toJson(info.request_format);
    this.responseFormatJson = toJson(info.response_format);
    this.metadata = info.metadata;
  }

  /** The request schema as registered (a fresh copy). */
  requestFormat(): unknown {
    return fromJson(this.requestFormatJson);
  }

  /** The response schema as registered (a fresh copy). */
  responseFormat(): unknown {
    return fromJson(this.responseFormatJson);
  }

  get replicas(): readonly Replica[] {
    return [this];
  }

  get replicaCount(): number {
    return 1;
  }

  get primary(): Replica {
    return this;
  }

  pick(): Replica {
    return this;
  }
}

/** A function two or more workers provide. */
export class ReplicaSet implements FunctionEntry {
  private next = 0;

  constructor(
    readonly id: string,
    /** In registration order; never fewer than two. */
    private readonly members: Replica[],
  ) {}

  get replicas(): readonly Replica[] {
    return this.members.slice();
  }

  get replicaCount(): number {
    return this.members.length;
  }

  get primary(): Replica {
    return this.members[this.members.length - 1]!;
  }

  /**
   * The replica with the fewest calls in flight, round-robin among equals; one whose connection no longer takes
   * frames (a killed worker, before the core is told) is passed over while another is open.
   */
  pick(): Replica {
    const replicas = this.members;
    const n = replicas.length;
    let bestIndex = -1;
    for (let k = 0; k < n; k++) {
      const i = (this.next + k) % n;
      const r = replicas[i]!;
      if (r.worker.conn.open === false) continue;
      if (bestIndex < 0 || r.inFlight < replicas[bestIndex]!.inFlight) bestIndex = i;
    }
    // none open: the first in turn, whose send fails as the call's answer says
    if (bestIndex < 0) bestIndex = this.next % n;
    this.next = (bestIndex + 1) % n;
    return replicas[bestIndex]!;
  }

  find(worker: Worker): Replica | undefined {
    return this.members.find((r) => r.worker === worker);
  }

  add(replica: Replica): void {
    this.members.push(replica);
  }

  /** Removes `replica`; returns the one left when a single replica remains (it becomes the entry). */
  remove(replica: Replica): Replica | undefined {
    const index = this.members.indexOf(replica);
    if (index !== -1) this.members.splice(index, 1);
    if (this.next >= this.members.length) this.next = 0;
    return this.members.length === 1 ? this.members[0] : undefined;
  }
}

export class FunctionRegistry {
  private readonly entries = new Map<string, Replica | ReplicaSet>();

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
    const entry = this.entries.get(id);
    worker.functions.add(id);
    if (entry === undefined) {
      this.entries.set(id, new Replica(id, worker, info));
      return true;
    }
    if (entry instanceof Replica) {
      if (entry.worker === worker) entry.describe(info);
      else this.entries.set(id, new ReplicaSet(id, [entry, new Replica(id, worker, info)]));
      return false;
    }
    const existing = entry.find(worker);
    if (existing !== undefined) existing.describe(info);
    else entry.add(new Replica(id, worker, info));
    return false;
  }

  /** Removes only `worker`'s replica. Returns true when the id left the registry (no replica remains). */
  unregister(id: string, worker: Worker): boolean {
    const entry = this.entries.get(id);
    worker.functions.delete(id);
    if (entry === undefined) return false;
    if (entry instanceof Replica) {
      if (entry.worker !== worker) return false;
      this.entries.delete(id);
      return true;
    }
    const replica = entry.find(worker);
    if (replica === undefined) return false;
    const last = entry.remove(replica);
    if (last !== undefined) this.entries.set(id, last);
    return false;
  }
}
