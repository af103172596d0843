/**
 * Persistence under the builtin queue. The builtin adapter keeps every job in memory and writes each state change
 * through a `JobStore`; on start it rebuilds its queues from `load()` and their completed / failed totals from
 * `loadTotals()`. `MemoryJobStore` keeps nothing (in_memory mode: a restart loses every job and the totals start
 * from zero); `FileJobStore` (builtin-file-store.ts) makes each write durable before the promise resolves.
 */
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
  /** Not stored. Characters of the job's stored text a file store counts as held in memory with the row. */
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
  /** Resolves once the row is durable; rejects if it could not be written (the enqueue must then fail). */
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

export class MemoryJobStore implements JobStore {
  readonly immediate = true;
  load(): Promise<JobRow[]> {
    return Promise.resolve([]);
  }
  loadTotals(): Promise<Map<string, Totals>> {
    return Promise.resolve(new Map<string, Totals>());
  }
  insert(): Promise<void> {
    return done;
  }
  update(): Promise<void> {
    return done;
  }
  data(row: JobRow): unknown {
    return row.data;
  }
  remove(): Promise<void> {
    return done;
  }
  close(): Promise<void> {
    return done;
  }
}
