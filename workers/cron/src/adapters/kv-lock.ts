/**
 * `modules::cron::KvCronAdapter`: tick claims in this process's memory, optionally saved to a file every
 * `save_interval_ms` so that a restart within `lock_ttl_ms` does not run a tick the previous process already ran.
 * Claims are local to one process: two svc-cron processes with this adapter each run every tick (docs/scaling.md).
 *
 * Owns: the claim table, the save timer and the claim file (claim-file.ts: SQLite, replaced in one transaction,
 * a file that is not a lock database set aside). `close()` stops the timer, saves one last time, closes the file.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { KvCronConfig } from '../config.js';
import { ClaimFile, type Claim } from './claim-file.js';
import { tickKey, type CronLease, type CronLockAdapter } from './types.js';

export class KvCronAdapter implements CronLockAdapter {
  readonly name = 'modules::cron::KvCronAdapter';
  readonly distributed = false;
  private readonly claims = new Map<string, Claim>();
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;
  private closed = false;
  private lastSweep = 0;
  private file: ClaimFile | undefined;

  constructor(
    private readonly config: KvCronConfig,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async start(): Promise<void> {
    if (!this.persistent) return;
    this.load();
    this.timer = setInterval(() => this.saveIfDirty(), this.config.save_interval_ms);
    this.timer.unref();
  }

  async claim(jobId: string, tickMs: number): Promise<CronLease | null> {
    const key = tickKey(this.config.lock_index, jobId, tickMs);
    const now = this.now();
    const held = this.claims.get(key);
    if (held && held.expiresAt > now) return null;
    // Expired claims are dropped at most once a second: claims are made at every tick of every job.
    if (now - this.lastSweep >= 1000) this.sweep(now);
    const token = randomUUID();
    this.claims.set(key, { token, expiresAt: now + this.config.lock_ttl_ms });
    this.dirty = true;
    return { key, token };
  }

  async release(lease: CronLease): Promise<boolean> {
    const held = this.claims.get(lease.key);
    if (!held || held.token !== lease.token) return false;
    this.claims.delete(lease.key);
    this.dirty = true;
    return true;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.saveIfDirty();
    this.file?.close();
  }

  private get persistent(): boolean {
    return this.config.store_method === 'file_based' && this.config.file_path !== undefined;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, claim] of this.claims) if (claim.expiresAt <= now) this.claims.delete(key);
  }

  private load(): void {
    this.file = new ClaimFile(this.config.file_path!, this.logger);
    for (const [key, claim] of this.file.open(this.now())) this.claims.set(key, claim);
  }

  private saveIfDirty(): void {
    if (!this.dirty || !this.file) return;
    this.sweep(this.now());
    try {
      this.file.save(this.claims);
      this.dirty = false;
    } catch (err) {
      const file = this.config.file_path;
      this.logger.error({ err, file }, 'cannot save cron lock file; claims stay in memory and saving is retried');
    }
  }
}
