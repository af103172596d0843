/**
 * The invocations one worker takes part in, in one role: those it executes, or those it waits on as their caller.
 * A doubly-linked list through link fields of the invocation itself (`InvocationLinks`), so adding and removing one
 * costs a few field writes: no Set entry, no identity hash per invocation and no rehash of a table that every call
 * passes through twice (a Set per worker did: ~3% of the engine's CPU per event delivery).
 */

/** An invocation's places in its executor's list and in its caller's. */
export interface InvocationLinks {
  execPrev: InvocationLinks | undefined;
  execNext: InvocationLinks | undefined;
  waitPrev: InvocationLinks | undefined;
  waitNext: InvocationLinks | undefined;
}

export class WorkerInvocations<T extends InvocationLinks> implements Iterable<T> {
  private head: T | undefined = undefined;
  private tail: T | undefined = undefined;
  private count = 0;

  /** `executing`: the list of the invocations a worker executes; else of those it waits on. */
  constructor(private readonly executing: boolean) {}

  get size(): number {
    return this.count;
  }

  /** Adds `inv` at the end (a walk sees the oldest first). */
  add(inv: T): void {
    const tail = this.tail;
    if (this.executing) {
      inv.execPrev = tail;
      inv.execNext = undefined;
      if (tail !== undefined) tail.execNext = inv;
    } else {
      inv.waitPrev = tail;
      inv.waitNext = undefined;
      if (tail !== undefined) tail.waitNext = inv;
    }
    if (tail === undefined) this.head = inv;
    this.tail = inv;
    this.count++;
  }

  /** Removes `inv`, which must be in this list. */
  delete(inv: T): void {
    let prev: InvocationLinks | undefined;
    let next: InvocationLinks | undefined;
    if (this.executing) {
      prev = inv.execPrev;
      next = inv.execNext;
      if (prev !== undefined) prev.execNext = next;
      if (next !== undefined) next.execPrev = prev;
      inv.execPrev = inv.execNext = undefined;
    } else {
      prev = inv.waitPrev;
      next = inv.waitNext;
      if (prev !== undefined) prev.waitNext = next;
      if (next !== undefined) next.waitPrev = prev;
      inv.waitPrev = inv.waitNext = undefined;
    }
    if (prev === undefined) this.head = next as T | undefined;
    if (next === undefined) this.tail = prev as T | undefined;
    this.count--;
  }

  /** Oldest first. Ending an invocation during the walk is safe only over a copy (`[...list]`). */
  *[Symbol.iterator](): Iterator<T> {
    let inv: InvocationLinks | undefined = this.head;
    while (inv !== undefined) {
      yield inv as T;
      inv = this.executing ? inv.execNext : inv.waitNext;
    }
  }
}
