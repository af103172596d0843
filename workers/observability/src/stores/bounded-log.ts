/**
 * An append-only, oldest-first list with a count bound and an optional age bound: appending past `maxCount`
 * evicts the oldest entries, and `sweep(now)` evicts those older than `retentionMs`. Eviction is O(1) per entry
 * (a moving head, compacted once half the array is dead).
 */
export class BoundedLog<T> {
  private items: T[] = [];
  private head = 0;

  constructor(
    private readonly maxCount: number,
    private readonly timeOf: (item: T) => number,
    private readonly retentionMs: number | undefined,
    private readonly onEvict?: (item: T) => void,
  ) {}

  get size(): number {
    return this.items.length - this.head;
  }

  get capacity(): number {
    return this.maxCount;
  }

  push(item: T): void {
    this.items.push(item);
    while (this.size > this.maxCount) this.evictOne();
  }

  /** Evicts entries older than the retention; returns how many. */
  sweep(nowMs: number): number {
    if (this.retentionMs === undefined) return 0;
    const cutoff = nowMs - this.retentionMs;
    let n = 0;
    // entries arrive roughly in time order; stop at the first one still inside the retention
    while (this.size > 0 && this.timeOf(this.items[this.head] as T) < cutoff) {
      this.evictOne();
      n++;
    }
    return n;
  }

  /** Oldest first. */
  *values(): IterableIterator<T> {
    for (let i = this.head; i < this.items.length; i++) yield this.items[i] as T;
  }

  /** Newest first. */
  *newest(): IterableIterator<T> {
    for (let i = this.items.length - 1; i >= this.head; i--) yield this.items[i] as T;
  }

  clear(): number {
    const n = this.size;
    this.items = [];
    this.head = 0;
    return n;
  }

  private evictOne(): void {
    const item = this.items[this.head] as T;
    this.items[this.head] = undefined as T;
    this.head++;
    this.onEvict?.(item);
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}
