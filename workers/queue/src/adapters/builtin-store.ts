/**
 * Persistence under the builtin queue. The builtin adapter keeps every job in memory and writes each state change
 * through a `JobStore`; on start it rebuilds its queues from `load()` and their completed / failed totals from
 * `loadTotals()`. `MemoryJobStore` keeps nothing (in_memory mode: a restart loses every job and the totals start
 * from zero, and it holds at most `max_store_bytes` of jobs); `FileJobStore` (builtin-file-store.ts) makes each
 * write durable before the promise resolves.
 */
import { mebibytes } from '@svc/sdk';
import { QueueErrorCode } from '../error-codes.js';
import { badInput } from '../input.js';
import type { ErrorInfo } from './types.js';

export type JobState = 'waiting' | 'active' | 'delayed' | 'dead';

export interface JobRow {
  id: string;
  queue: string;
  seq: number;
  state: JobState;
  attempts: number;
  runAt: number;
  function_id: string;
  /**
   * The job's data; `undefined` while only the store holds it (a file store keeps a bounded amount of data in
   * memory, see `JobStore.data`).
   */
  data: unknown;
  traceparent: string | null;
  baggage: string | null;
  condition_function_id: string | null;
  lastError: ErrorInfo | null;
  enqueuedAt: number;
  failedAt: number;
  /**
   * Not stored. False for an id that is fresh by construction (the engine's receipt id): its completion is not
   * remembered for deduplication. Rows loaded from the store are remembered (the default).
   */
  dedupe?: boolean;
  /** Not stored. Characters of the job a store counts as held in memory with the row (its data's text, at least). */
  held?: number;
}

/** How a job left its queue, for the per-queue totals (`completed`, `failed` in the topic stats). */
export interface Outcome {
  queue: string;
  kind: 'completed' | 'failed';
}

/** A queue's totals: jobs completed, and jobs moved to dead letters. */
export interface Totals {
  completed: number;
  failed: number;
}

export interface JobStore {
  /** True for a store whose writes complete at once (it keeps nothing): a new job need not wait for its insert. */
  readonly immediate: boolean;
  /** Every job persisted, in `seq` order. */
  load(): Promise<JobRow[]>;
  /** The totals persisted per queue (empty for a store that keeps nothing). */
  loadTotals(): Promise<Map<string, Totals>>;
  /**
   * Resolves once the row is durable; rejects if it could not be written (the enqueue must then fail). A store whose
   * writes complete at once (`immediate`) refuses a row by throwing, before the queue holds it.
   */
  insert(row: JobRow): Promise<void>;
  /**
   * State changes of a row `insert` was given (identified by its `seq`): `update` records the row's state,
   * attempts, run time, last error and failure time as they are at the call. They are written in order with the
   * inserts. With `durable` (the default) the promise resolves once the change is on disk; without it (a change
   * that may be replayed after a power loss: a job started, completed, retried or moved to dead letters, which
   * at-least-once delivery runs again at worst) it resolves once written, and becomes durable with the next durable
   * write or checkpoint. A process crash loses neither. An `outcome` adds one to that queue's totals in the same
   * write (the move to dead letters; the removal of a completed job), so the totals agree with the jobs after a
   * crash.
   */
  update(row: JobRow, outcome?: Outcome, durable?: boolean): Promise<void>;
  /** The data of a row `insert` was given or `load` gave: read back from the store when the row does not hold it. */
  data(row: JobRow): unknown;
  remove(row: JobRow, outcome?: Outcome, durable?: boolean): Promise<void>;
  close(): Promise<void>;
}

const done = Promise.resolve();

/** Characters counted for a job besides its data and ids: the row object and its places in its queue's maps. */
const ROW_CHARS = 256;

/** An enqueue that would take the in-memory store past `max_store_bytes`. */
export class StoreFullError extends Error {
  readonly code = QueueErrorCode.QueueStoreFull;
  constructor(held: number, max: number) {
    super(
      `svc-queue's in-memory store holds ${mebibytes(held)} of jobs and this one would take it past max_store_bytes ` +
        `(${mebibytes(max)}): let its consumers catch up, discard dead letters, or raise max_store_bytes`,
    );
  }
}

/**
 * Keeps nothing: every job lives in this process only. It counts what its jobs hold (their data as JSON text, their
 * ids, `ROW_CHARS` each) and refuses a job that would take that past `maxChars` (`max_store_bytes`), so a producer
 * faster than its consumers gets `queue_store_full` instead of running svc-queue out of memory.
 */
export class MemoryJobStore implements JobStore {
  readonly immediate = true;
  private held = 0;

  constructor(private readonly maxChars: number) {}

  load(): Promise<JobRow[]> {
    return Promise.resolve([]);
  }
  loadTotals(): Promise<Map<string, Totals>> {
    return Promise.resolve(new Map<string, Totals>());
  }
  insert(row: JobRow): Promise<void> {
    let text: string | undefined;
    try {
      text = JSON.stringify(row.data);
    } catch (err) {
      throw badInput(`the job's data cannot be written as JSON: ${(err as Error).message}`);
    }
    const size = ROW_CHARS + row.id.length + row.function_id.length + (text?.length ?? 0);
    if (this.held + size > this.maxChars) throw new StoreFullError(this.held, this.maxChars);
    row.held = size;
    this.held += size;
    return done;
  }
  update(): Promise<void> {
    return done;
  }
  data(row: JobRow): unknown {
    return row.data;
  }
  remove(row: JobRow): Promise<void> {
    this.held -= row.held ?? 0;
    row.held = 0;
    return done;
  }
  close(): Promise<void> {
    return done;
  }
}
