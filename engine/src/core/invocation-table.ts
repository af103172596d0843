/**
 * Invocations in flight, indexed two ways: by the id the executor sees, and by (caller, the caller's own id), so
 * a result and a caller's cancel are both O(1) lookups. The executor usually sees the caller's own id, so the
 * second index only holds the invocations that got a fresh id (the caller's was already in use). Ending an
 * invocation removes it from both, so a late result finds nothing and is dropped.
 *
 * The ids the engine makes itself (a trigger's delivery, a void call, a caller's id already in use) name a slot:
 * `reserve()` and `idOf(slot)` put a free slot's number in the id's first eight hex digits (`newUuid(lead)`), and
 * the invocation is kept in that slot, so its answer finds it by reading the number back and comparing the whole
 * id, with no hash of either id (a Map keyed by them was ~11% of the engine's CPU per event delivery). The ids
 * callers chose are kept in a Map; an id that reads as a slot's number but is not that slot's id is looked up there
 * too.
 */
import { InFlightMap, newUuid, uuidLead, type DeadlineEntry } from '@svc/sdk/core';
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
  /** The slot its id names (`reserve()`), or -1 when its id was the caller's. */
  readonly slot: number;
  /** When it started (`performance.now()`), taken only when an observer wants durations; else 0. */
  readonly startedAt: number;
  /** The traceparent a start observer put in place of the caller's for the executor (docs/hooks.md); else undefined. */
  traceparent: string | undefined;
}

/** Slots kept when the last invocation in one ends; a table that needed more after a burst starts again. */
const SLOTS_KEPT = 1024;

export class InvocationTable {
  /** An `InFlightMap` (sdk/src/in-flight.ts): its entries come and go with every call. */
  private readonly byId = new InFlightMap<string, Invocation>();
  /** Invocations under ids made by `idOf(slot)`, by slot; a reserved slot holds `null` until its invocation comes. */
  private readonly slots: (Invocation | null | undefined)[] = [];
  /** Slots free for reuse, most recently freed last. */
  private readonly freeSlots: number[] = [];
  private inSlots = 0;

  get size(): number {
    return this.byId.size + this.inSlots;
  }

  /** A free slot, held for the invocation `add` puts there next under the id `idOf(slot)`. */
  reserve(): number {
    const slot = this.freeSlots.length > 0 ? this.freeSlots.pop()! : this.slots.length;
    this.slots[slot] = null;
    return slot;
  }

  /** A fresh invocation id naming `slot`. */
  idOf(slot: number): string {
    return newUuid(slot);
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  get(id: string): Invocation | undefined {
    const slot = uuidLead(id);
    if (slot >= 0 && slot < this.slots.length) {
      const inv = this.slots[slot];
      if (inv != null && inv.id === id) return inv;
    }
    return this.byId.get(id);
  }

  /** The invocation `caller` is waiting on under its own id `callerInvocationId`. */
  byCaller(caller: Worker, callerInvocationId: string): Invocation | undefined {
    const inv = this.get(callerInvocationId);
    if (inv !== undefined && inv.caller === caller && inv.call.callerInvocationId === callerInvocationId) return inv;
    return caller.renamed.get(callerInvocationId);
  }

  add(inv: Invocation): void {
    if (inv.slot >= 0) {
      this.slots[inv.slot] = inv;
      this.inSlots++;
    } else this.byId.set(inv.id, inv);
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
    if (inv.slot >= 0) {
      if (this.slots[inv.slot] !== inv) return false;
      this.slots[inv.slot] = undefined;
      this.freeSlots.push(inv.slot);
      // after a burst, the slots it needed go with the last of its invocations
      if (--this.inSlots === 0 && this.slots.length > SLOTS_KEPT) this.slots.length = this.freeSlots.length = 0;
    } else {
      if (this.byId.get(inv.id) !== inv) return false;
      this.byId.delete(inv.id);
    }
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

  *values(): IterableIterator<Invocation> {
    for (const inv of this.slots) if (inv != null) yield inv;
    yield* this.byId.values();
  }
}
