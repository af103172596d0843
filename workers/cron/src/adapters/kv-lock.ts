/**
 * `modules::cron::KvCronAdapter`: tick claims in this process's memory, optionally saved to a file every
 * `save_interval_ms` so that a restart within `lock_ttl_ms` does not run a tick the previous process already ran.
 * Claims are local to one process: two svc-cron processes with this adapter each run every tick (SPEC.md).
 *
 * Owns: the claim table and the save timer. `close()` stops the timer and writes the file one last time.
 * The file is written to a temporary name, fsynced and renamed over the old one, so a crash leaves either the old
 * or the new file, never a torn one; a file that does not parse is set aside (renamed `.corrupt-<time>`) rather
 * than trusted.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { KvCronConfig } from '@svc/config';
import { tickKey, type CronLease, type CronLockAdapter } from './types.js';

interface Claim {
  token: string;
  expiresAt: number;
}

export class KvCronAdapter implements CronLockAdapter {
  readonly name = 'modules::cron::KvCronAdapter';
  readonly distributed = false;
  private readonly claims = new Map<string, Claim>();
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;
  private closed = false;
  private lastSweep = 0;

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
  }

  private get persistent(): boolean {
    return this.config.store_method === 'file_based' && this.config.file_path !== undefined;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, claim] of this.claims) if (claim.expiresAt <= now) this.claims.delete(key);
  }

  private load(): void {
    const file = this.config.file_path!;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    const parsed = parseClaims(text);
    if (parsed === undefined) {
      const aside = `${file}.corrupt-${Date.now()}`;
      renameSync(file, aside);
      this.logger.warn({ file, aside }, 'cron lock file does not parse; set it aside and starting with no claims');
      return;
    }
    const now = this.now();
    for (const [key, claim] of parsed) if (claim.expiresAt > now) this.claims.set(key, claim);
  }

  private saveIfDirty(): void {
    if (!this.dirty || !this.persistent) return;
    const file = this.config.file_path!;
    this.sweep(this.now());
    try {
      writeAtomically(file, JSON.stringify({ version: 1, claims: Object.fromEntries(this.claims) }));
      this.dirty = false;
    } catch (err) {
      this.logger.error({ err, file }, 'cannot save cron lock file; claims stay in memory and saving is retried');
    }
  }
}

function writeAtomically(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  const fd = openSync(tmp, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  const dir = openSync(dirname(file), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/** Validates the file's shape; returns undefined when it is not what we wrote. */
function parseClaims(text: string): Map<string, Claim> | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof doc !== 'object' || doc === null) return undefined;
  const claims = (doc as { claims?: unknown }).claims;
  if (typeof claims !== 'object' || claims === null) return undefined;
  const out = new Map<string, Claim>();
  for (const [key, value] of Object.entries(claims)) {
    const { token, expiresAt } = (value ?? {}) as { token?: unknown; expiresAt?: unknown };
    if (typeof token !== 'string' || typeof expiresAt !== 'number') return undefined;
    out.set(key, { token, expiresAt });
  }
  return out;
}
