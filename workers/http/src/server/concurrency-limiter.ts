/**
 * A counting limiter for in-flight requests (`concurrency_request_limit`). `tryAcquire()` either hands out a
 * slot or says no at once (the caller answers 503 + Retry-After; requests never queue). A slot's `release()` is
 * idempotent, so the several ways a request can end (response finished, timeout, client abort) may all call it
 * and the slot still comes back exactly once.
 */
export interface Slot {
  readonly release: () => void;
}

export class ConcurrencyLimiter {
  private active = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(readonly limit: number) {}

  get inFlight(): number {
    return this.active;
  }

  tryAcquire(): Slot | undefined {
    if (!this.tryEnter()) return undefined;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.leave();
      },
    };
  }

  /**
   * Takes a slot without a `Slot` object: the caller gives it back with `leave()` exactly once (the request
   * handler keeps that flag on its own per-request object).
   */
  tryEnter(): boolean {
    if (this.active >= this.limit) return false;
    this.active++;
    return true;
  }

  leave(): void {
    this.active--;
    if (this.active === 0) this.notifyIdle();
  }

  /** Resolves when no slot is held (used to drain on shutdown). */
  idle(): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
