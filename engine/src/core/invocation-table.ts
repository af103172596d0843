/**
 * Invocations in flight, keyed by the id the executor sees. Each one has a deadline; whichever comes first of
 * result, timeout or a disconnect ends it, and ending removes it, so a late result finds nothing and is dropped.
 */
import type { ErrorBody } from '@svc/sdk';
import type { Replica } from './function-registry.js';
import type { Worker } from './worker.js';

/** What an engine-internal caller (e.g. the enqueue path) receives instead of a frame. */
export interface InvocationOutcome {
  result?: unknown;
  error?: ErrorBody;
}

export interface Invocation {
  /** The id the executor sees (the caller's own id for sync calls, unless that id is already in use). */
  readonly id: string;
  readonly functionId: string;
  readonly executor: Worker;
  readonly replica: Replica;
  /** The worker waiting for the result; undefined for void calls and internal callers. */
  readonly caller: Worker | undefined;
  /** The id the caller used, echoed in its `invocationresult`. */
  readonly callerInvocationId: string | undefined;
  /** For engine-internal callers. */
  readonly onDone: ((outcome: InvocationOutcome) => void) | undefined;
  readonly timeoutMs: number;
  timer: NodeJS.Timeout | undefined;
}

export class InvocationTable {
  private readonly byId = new Map<string, Invocation>();

  get size(): number {
    return this.byId.size;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  get(id: string): Invocation | undefined {
    return this.byId.get(id);
  }

  add(inv: Invocation): void {
    this.byId.set(inv.id, inv);
    inv.executor.invocations.add(inv);
    inv.caller?.invocations.add(inv);
    inv.replica.inFlight++;
  }

  /** Removes the invocation and its bookkeeping. Returns false when it had already ended. */
  end(inv: Invocation): boolean {
    if (this.byId.get(inv.id) !== inv) return false;
    this.byId.delete(inv.id);
    if (inv.timer !== undefined) clearTimeout(inv.timer);
    inv.executor.invocations.delete(inv);
    inv.caller?.invocations.delete(inv);
    inv.replica.inFlight--;
    return true;
  }

  values(): IterableIterator<Invocation> {
    return this.byId.values();
  }
}
