/**
 * Delivers state trigger events without slowing writers, in commit order per (binding, key), with a bound.
 *
 * Each (binding, scope, key) has a chain: a delivery starts when the previous one of that chain has finished (the
 * handler returned, failed or timed out), so a handler sees one key's changes in commit order. Different chains run
 * concurrently. Deliveries queued or running are counted, and so is every write between `admit()` and its end (it
 * may add a delivery when it commits). When the count reaches `maxPending`, `admit()` waits until there is room:
 * writers slow down instead of events being dropped or memory growing without end. (A write that matches several
 * bindings adds one delivery per binding, so the bound is exact for one binding and soft by that factor.)
 */
import type { Logger } from 'pino';
import { InFlightMap } from '@svc/sdk';

export interface Delivery {
  /** Ordering key: deliveries with the same chain run one after another. */
  chain: string;
  run(): Promise<void>;
}

export interface DispatcherStats {
  pending: number;
  delivered: number;
  failed: number;
  /** Writes that had to wait for room. */
  backpressureWaits: number;
}

export class TriggerDispatcher {
  private readonly chains = new InFlightMap<string, Promise<void>>();
  private waiters: (() => void)[] = [];
  private readonly stats: DispatcherStats = { pending: 0, delivered: 0, failed: 0, backpressureWaits: 0 };
  private warnedFull = false;
  /** Writes admitted and not yet ended. */
  private writing = 0;

  constructor(
    private readonly maxPending: number,
    private readonly logger: Logger,
  ) {}

  /**
   * Resolves when a write may commit (at once unless the bound is reached) with the function the write calls when
   * it has ended (committed, and its deliveries dispatched, or failed).
   */
  async admit(): Promise<() => void> {
    const now = this.tryAdmit();
    if (now !== undefined) return now;
    this.stats.backpressureWaits++;
    if (!this.warnedFull) {
      this.warnedFull = true;
      this.logger.warn({ ...this.stats, max: this.maxPending }, 'state trigger deliveries at their bound; writes wait');
    }
    while (this.load() >= this.maxPending) await new Promise<void>((resolve) => this.waiters.push(resolve));
    return this.enter();
  }

  /** `admit()` without waiting: the write's end function when there is room now, else undefined. */
  tryAdmit(): (() => void) | undefined {
    return this.load() < this.maxPending ? this.enter() : undefined;
  }

  private enter(): () => void {
    this.writing++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.writing--;
      this.release();
    };
  }

  dispatch(delivery: Delivery): void {
    this.stats.pending++;
    const previous = this.chains.get(delivery.chain) ?? Promise.resolve();
    const next = previous.then(() => this.runOne(delivery));
    this.chains.set(delivery.chain, next);
    void next.then(() => {
      if (this.chains.get(delivery.chain) === next) this.chains.delete(delivery.chain);
    });
  }

  snapshot(): DispatcherStats {
    return { ...this.stats };
  }

  /** Waits (at most `timeoutMs`) for the deliveries already dispatched. */
  async drain(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([Promise.allSettled([...this.chains.values()]), deadline]);
    clearTimeout(timer);
  }

  private async runOne(delivery: Delivery): Promise<void> {
    try {
      await delivery.run();
      this.stats.delivered++;
    } catch (err) {
      this.stats.failed++;
      this.logger.warn({ err, chain: delivery.chain }, 'state trigger delivery failed');
    } finally {
      this.stats.pending--;
      this.release();
    }
  }

  private load(): number {
    return this.stats.pending + this.writing;
  }

  private release(): void {
    if (this.load() >= this.maxPending) return;
    if (this.warnedFull && this.stats.pending === 0) this.warnedFull = false;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
