/**
 * The lock store behind svc-cron: one claim per tick of a job, so a tick runs at most once among every process
 * that shares the store.
 *
 * A claim is keyed by (job id, scheduled tick time) and holds a random token for `lock_ttl_ms`. It is NOT released when
 * a run ends: the claim has to outlive the moment every other process wakes for the same tick, or a process whose timer
 * fired a few milliseconds late would find the tick free and run it again. It expires by itself. `release` exists for a
 * holder that gives a tick up before running it (shutting down); it is a compare-and-delete by token, so a holder whose
 * claim already expired and was taken by someone else (a process paused past its claim's lifetime) can never delete the
 * new holder's claim.
 *
 * What an adapter owns: its connection or in-memory table, and its flush timer. `close()` is idempotent, stops the
 * timer, flushes what must be flushed and closes the connection; claims held in a shared store stay until they
 * expire.
 */
import { CronErrorCode } from '../error-codes.js';

export interface CronLease {
  readonly key: string;
  readonly token: string;
}

export interface CronLockAdapter {
  /** The adapter's config class, e.g. `modules::cron::KvserverCronAdapter`, for logs and `cron::list`. */
  readonly name: string;
  /** True when the store is shared by every process that uses it (Redis), false when claims are per process. */
  readonly distributed: boolean;
  start(): Promise<void>;
  /**
   * Claims one tick. Resolves the lease when this caller got it, null when someone else holds it.
   * Rejects with `LockStoreUnavailableError` when the store cannot be reached: the caller must then NOT run the
   * tick (fail closed).
   */
  claim(jobId: string, tickMs: number): Promise<CronLease | null>;
  /** Gives a claim back, only if it is still ours (token compare-and-delete). Resolves true when it was deleted. */
  release(lease: CronLease): Promise<boolean>;
  close(): Promise<void>;
}

export class LockStoreUnavailableError extends Error {
  readonly code = CronErrorCode.LockStoreUnavailable;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LockStoreUnavailableError';
  }
}

/** The key of one tick's claim; the tick is the scheduled time in epoch milliseconds. */
export function tickKey(index: string, jobId: string, tickMs: number): string {
  return `${index}:${jobId}:${tickMs}`;
}
