/**
 * A Map and a Set for entries that come and go at a high rate: calls in flight, keyed by invocation id. They
 * behave as a `Map` and a `Set`, and every 4096 deletions they move their entries to a new one.
 *
 * Why: V8 keeps a Map's entries in a hash table that it replaces by a new one whenever deleted slots fill it, and
 * it allocates the new table where the old one lives. Once a table has lived through two young-generation
 * collections (a quiet moment with no calls is enough), it is in the old generation, and from then on so is every
 * table after it. A replaced table is garbage, but it still points at the entries it held, and until the next
 * full collection those pointers keep each call's objects alive through every young-generation collection: they
 * are copied, then promoted, and the old generation fills with calls that ended long ago. Under load such a
 * process promoted ~1 MB per young collection instead of ~0.02 MB and spent twice as long collecting. A new Map
 * starts with a table in the young generation, where replaced tables die young with what they point at.
 *
 * An iteration sees the entries of the Map as it was when the iteration started if a deletion made meanwhile
 * moves them: delete while iterating over a copy (`[...set]`), as with any collection changed during a walk.
 */

/** Deletions after which the entries move to a new Map or Set (a copy of a few hundred entries: microseconds). */
export const IN_FLIGHT_RENEW_AFTER = 4096;

/**
 * What the Map and the Set share: the size, deletion, clearing, and the move to a new collection after enough
 * deletions. `E` is what a deletion names: a key of the Map, a value of the Set.
 */
abstract class Renewing<E, C extends { readonly size: number; delete(item: E): boolean }> {
  protected current: C;
  private deletes = 0;

  constructor(private readonly fresh: (from?: C) => C) {
    this.current = fresh();
  }

  get size(): number {
    return this.current.size;
  }

  clear(): void {
    this.current = this.fresh();
    this.deletes = 0;
  }

  /** Deletes `item`; every so many deletions that removed something, the entries move to a new collection. */
  delete(item: E): boolean {
    if (!this.current.delete(item)) return false;
    if (++this.deletes >= IN_FLIGHT_RENEW_AFTER) {
      this.deletes = 0;
      this.current = this.fresh(this.current);
    }
    return true;
  }
}

export class InFlightMap<K, V> extends Renewing<K, Map<K, V>> implements Iterable<[K, V]> {
  constructor() {
    super((from) => new Map(from));
  }

  get(key: K): V | undefined {
    return this.current.get(key);
  }

  has(key: K): boolean {
    return this.current.has(key);
  }

  set(key: K, value: V): this {
    this.current.set(key, value);
    return this;
  }

  keys(): MapIterator<K> {
    return this.current.keys();
  }

  values(): MapIterator<V> {
    return this.current.values();
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.current[Symbol.iterator]();
  }
}

export class InFlightSet<T> extends Renewing<T, Set<T>> implements Iterable<T> {
  constructor() {
    super((from) => new Set(from));
  }

  has(value: T): boolean {
    return this.current.has(value);
  }

  add(value: T): this {
    this.current.add(value);
    return this;
  }

  values(): SetIterator<T> {
    return this.current.values();
  }

  [Symbol.iterator](): SetIterator<T> {
    return this.current[Symbol.iterator]();
  }
}
