/**
 * Invocation deadlines on one timer. Each deadline falls into a bucket of `granularityMs` (rounded up: nothing
 * expires early, and at most one bucket late); the timer is armed for the earliest bucket that holds anything, and an
 * emptied bucket is dropped at once, so an idle engine is not woken for deadlines of calls that already ended.
 *
 * A Node timer per invocation cost the core ~0.3 µs of its ~4.3 µs per call (scripts/bench/engine-core-micro.mjs), and
 * each call's `Timeout` object, linked into Node's timer list while the call ran, was the largest kind of object that
 * young-generation collections moved to the old generation under load.
 */
export class Deadlines<T> {
  /** Items by bucket (the deadline in units of `granularityMs` since the time origin, rounded up). */
  private readonly buckets = new Map<number, Set<T>>();
  /** The keys of `buckets`, ascending. */
  private readonly keys: number[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The bucket the timer is armed for (Infinity: none). */
  private armed = Infinity;
  private readonly fire = (): void => this.expire();

  constructor(
    private readonly onExpired: (item: T) => void,
    private readonly granularityMs = 10,
  ) {}

  /** Number of items waiting. */
  get size(): number {
    let n = 0;
    for (const bucket of this.buckets.values()) n += bucket.size;
    return n;
  }

  /** `item` is due in `ms`; returns its bucket, which `delete` takes back. */
  add(item: T, ms: number): number {
    const key = Math.ceil((performance.now() + ms) / this.granularityMs);
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      bucket = new Set();
      this.buckets.set(key, bucket);
      const keys = this.keys;
      let at = keys.length;
      while (at > 0 && keys[at - 1]! > key) at--;
      keys.splice(at, 0, key);
      if (key < this.armed) this.arm();
    }
    bucket.add(item);
    return key;
  }

  /** `item` (in bucket `key`) ended before its deadline. */
  delete(item: T, key: number): void {
    const bucket = this.buckets.get(key);
    if (bucket === undefined || !bucket.delete(item) || bucket.size > 0) return;
    this.buckets.delete(key);
    const keys = this.keys;
    // the bucket emptied first is usually one of the newest: the calls that end quickly
    let at = keys.length - 1;
    while (at >= 0 && keys[at] !== key) at--;
    if (at >= 0) keys.splice(at, 1);
    if (key === this.armed) this.arm();
  }

  /** Expires every bucket that is due, then arms the timer for the next one. */
  private expire(): void {
    this.timer = undefined;
    this.armed = Infinity;
    const now = performance.now() / this.granularityMs;
    const keys = this.keys;
    while (keys.length > 0 && keys[0]! <= now) {
      const key = keys.shift()!;
      const bucket = this.buckets.get(key);
      if (bucket === undefined) continue;
      // each item leaves its bucket before its handler runs; a handler that ends an item of the same bucket not yet
      // reached (it is deleted from the set being walked) keeps it from expiring
      for (const item of bucket) {
        bucket.delete(item);
        this.onExpired(item);
      }
      if (this.buckets.get(key) === bucket) this.buckets.delete(key);
    }
    this.arm();
  }

  /** Arms the timer for the earliest bucket (or stops it when there is none). */
  private arm(): void {
    const first = this.keys[0];
    if (first === this.armed) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.armed = Infinity;
    if (first === undefined) return;
    const delay = Math.ceil(first * this.granularityMs - performance.now());
    // a delay past the timer's bound fires early and is armed again
    this.timer = setTimeout(this.fire, Math.min(Math.max(delay, 1), MAX_DELAY_MS));
    this.armed = first;
  }
}

/** Node's largest timer delay. */
const MAX_DELAY_MS = 2_147_483_647;
