/**
 * Channels made ahead of time, so a request does not wait for an engine call to get them: a pool of one kind
 * (`open`, or `ended`: prefilled with nothing, for a request without a body) refilled in the background with one
 * batched create whenever it runs low. A pooled channel older than `maxAgeMs` is dropped (and removed, also by a
 * periodic prune while idle), well before the engine would sweep it for having no end taken.
 */
import type { ChannelBatcher, ChannelRefs, ChannelSpec } from './channel-batch.js';

interface Pooled {
  refs: ChannelRefs;
  createdAt: number;
  generation: number;
}

export interface ChannelPoolOptions {
  /** Channels made per refill (grows when a request had to wait); the pool refills under half of it. */
  size?: number;
  maxAgeMs?: number;
  /**
   * Changes whenever the engine connection was lost: owned channels die with the connection, so entries made
   * under another generation are dropped.
   */
  generation?: () => number;
}

export class ChannelPool {
  private readonly ready: Pooled[] = [];
  private refilling: Promise<void> | undefined;
  private size: number;
  private readonly maxAgeMs: number;
  private readonly generation: () => number;

  constructor(
    private readonly batcher: ChannelBatcher,
    private readonly spec: ChannelSpec,
    options: ChannelPoolOptions = {},
  ) {
    this.size = options.size ?? 128;
    this.maxAgeMs = options.maxAgeMs ?? 60_000;
    this.generation = options.generation ?? (() => 0);
    // An idle pool gives its expired channels back, rather than leaving them to the engine's sweep.
    setInterval(() => this.prune(), this.maxAgeMs).unref();
  }

  private prune(): void {
    const now = Date.now();
    const expired = this.ready.filter((e) => now - e.createdAt > this.maxAgeMs);
    if (expired.length === 0) return;
    this.ready.splice(0, this.ready.length, ...this.ready.filter((e) => !expired.includes(e)));
    this.batcher.remove(expired.filter((e) => e.generation === this.generation()).map((e) => e.refs.writer));
  }

  /** A pooled channel at once, or undefined when none is ready (then `take()` waits for a refill). */
  takeReady(): ChannelRefs | undefined {
    for (;;) {
      const entry = this.ready.shift();
      if (this.ready.length < this.size / 2) void this.refill();
      if (entry === undefined) return undefined;
      if (entry.generation !== this.generation()) continue; // gone with the old connection
      if (Date.now() - entry.createdAt <= this.maxAgeMs) return entry.refs;
      this.batcher.remove([entry.refs.writer]);
    }
  }

  async take(): Promise<ChannelRefs> {
    for (;;) {
      const entry = this.ready.shift();
      if (this.ready.length < this.size / 2) void this.refill();
      if (entry === undefined) {
        // demand outran the pool: make it bigger (up to MAX_SIZE), so steady load never waits for a refill
        this.size = Math.min(this.size * 2, MAX_SIZE);
        await this.refill();
        continue;
      }
      if (entry.generation !== this.generation()) continue; // gone with the old connection
      if (Date.now() - entry.createdAt <= this.maxAgeMs) return entry.refs;
      this.batcher.remove([entry.refs.writer]);
    }
  }

  private refill(): Promise<void> {
    const generation = this.generation();
    this.refilling ??= Promise.all(
      chunks(this.size, MAX_PER_ASK).map((n) => this.batcher.create(Array.from({ length: n }, () => this.spec))),
    )
      .then((lists) => {
        const createdAt = Date.now();
        for (const r of lists.flat()) this.ready.push({ refs: r, createdAt, generation });
      })
      .finally(() => (this.refilling = undefined));
    return this.refilling;
  }
}

const MAX_SIZE = 2048;

/** One create call carries at most this many channels (the engine's batch bound). */
const MAX_PER_ASK = 64;

function chunks(total: number, size: number): number[] {
  const out: number[] = [];
  for (let left = total; left > 0; left -= size) out.push(Math.min(size, left));
  return out;
}
