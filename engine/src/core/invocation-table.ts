/**
 * Invocations in flight, indexed two ways: by the id the executor sees, and by (caller, the caller's own id), so
 * a result and a caller's cancel are both O(1) lookups. The executor usually sees the caller's own id, so the
 * second index only holds the invocations that got a fresh id (the caller's was already in use). Ending an
 * invocation removes it from both, so a late result finds nothing and is dropped.
 */
import { InFlightMap, type DeadlineEntry } from '@svc/sdk/core';
import type { CallRequest } from './call.js';
import type { Replica } from './function-registry.js';
import type { Worker } from './worker.js';
import type { InvocationLinks } from './worker-invocations.js';

export type { InvocationOutcome } from './call.js';

/** Its `DeadlineEntry` fields are its place in the lifecycle's `Deadlines` (invocation-lifecycle.ts). */
export interface Invocation extends DeadlineEntry, InvocationLinks {
  /** The id the executor sees (the caller's own id for sync calls, unless that id is already in use). */
  readonly id: string;
  readonly call: CallRequest;
  readonly executor: Worker;
  readonly replica: Replica;
  /** The worker waiting for the result; undefined for void calls and internal callers. */
  readonly caller: Worker | undefined;
  /** When it started (`performance.now()`), taken only when an observer wants durations; else 0. */
  readonly startedAt: number;
  /** The traceparent a start observer put in place of the caller's for the executor (docs/hooks.md); else undefined. */
  traceparent: string | undefined;
}

export class InvocationTable {
  /** An `InFlightMap` (sdk/src/in-flight.ts): its entries come and go with every call. */
  private readonly byId = new InFlightMap<string, Invocation>();

  get size(): number {
    return this.byId.size;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  get(id: string): Invocation | undefined {
    return this.byId.get(id);
  }

  /** The invocation `caller` is waiting on under its own id `callerInvocationId`. */
  byCaller(caller: Worker, callerInvocationId: string): Invocation | undefined {
    const inv = this.byId.get(callerInvocationId);
    if (inv !== undefined && inv.caller === caller && inv.call.callerInvocationId === callerInvocationId) return inv;
    return caller.renamed.get(callerInvocationId);
  }

  add(inv: Invocation): void {
    this.byId.set(inv.id, inv);
    inv.executor.executing.add(inv);
    const caller = inv.caller;
    if (caller !== undefined) {
      caller.waiting.add(inv);
      const callerId = inv.call.callerInvocationId!;
      if (callerId !== inv.id && !caller.renamed.has(callerId)) caller.renamed.set(callerId, inv);
    }
    inv.replica.inFlight++;
  }

  /** Removes the invocation and its bookkeeping. Returns false when it had already ended. */
  end(inv: Invocation): boolean {
    if (this.byId.get(inv.id) !== inv) return false;
    this.byId.delete(inv.id);
    inv.executor.executing.delete(inv);
    const caller = inv.caller;
    if (caller !== undefined) {
      caller.waiting.delete(inv);
      const callerId = inv.call.callerInvocationId!;
      if (callerId !== inv.id && caller.renamed.get(callerId) === inv) caller.renamed.delete(callerId);
    }
    inv.replica.inFlight--;
    return true;
  }

  values(): IterableIterator<Invocation> {
    return this.byId.values();
  }
}
