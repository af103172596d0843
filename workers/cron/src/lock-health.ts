/**
 * Says so, loudly and once, when the lock store goes away, and once more when it is back; counts the ticks that were
 * not run meanwhile (fail closed: no tick runs without the lock; README.md, "Locks: exactly one run per tick"). One log
 * line per outage, not one per tick.
 */
import type { Logger } from 'pino';
import { CronErrorCode } from './error-codes.js';

export class LockHealth {
  available = true;
  outages = 0;
  skippedTicks = 0;
  lastError: string | undefined;
  private downSince = 0;

  constructor(
    private readonly adapterName: string,
    private readonly logger: Logger,
  ) {}

  /** A claim could not be made because the store is unreachable; the tick is skipped. */
  failed(err: unknown): void {
    this.skippedTicks++;
    this.lastError = err instanceof Error ? err.message : String(err);
    if (!this.available) return;
    this.available = false;
    this.outages++;
    this.downSince = Date.now();
    this.logger.error(
      { adapter: this.adapterName, err: this.lastError, code: CronErrorCode.LockStoreUnavailable },
      'cron lock store unavailable: no cron job runs until it is back (fail closed)',
    );
  }

  /** A claim round-trip succeeded (whoever got the tick). */
  ok(): void {
    if (this.available) return;
    this.available = true;
    this.logger.warn(
      { adapter: this.adapterName, down_ms: Date.now() - this.downSince, skipped_ticks: this.skippedTicks },
      'cron lock store is back: cron jobs run again',
    );
  }
}
