/**
 * Persistence under the builtin queue. The builtin adapter keeps every job in memory and writes each state change
 * through a `JobStore`; on start it rebuilds its queues from `load()`. `MemoryJobStore` keeps nothing (in_memory
 * mode: a restart loses every job); `FileJobStore` (builtin-file-store.ts) makes each write durable before the
 * promise resolves.
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
  data: unknown;
  traceparent: string | null;
  baggage: string | null;
  condition_function_id: string | null;
  lastError: ErrorInfo | null;
  enqueuedAt: number;
  failedAt: number;
}

export type JobPatch = Pick<JobRow, 'state' | 'attempts' | 'runAt' | 'lastError' | 'failedAt'>;

export interface JobStore {
  /** Every job persisted, in `seq` order. */
  load(): Promise<JobRow[]>;
  /** Resolves once the row is durable; rejects if it could not be written (the enqueue must then fail). */
  insert(row: JobRow): Promise<void>;
  /**
   * State changes. They are written in order with the inserts; the promise resolves once durable, but callers
   * that can tolerate replaying a job after a crash (active, completed) need not wait for it.
   */
  update(id: string, patch: JobPatch): Promise<void>;
  remove(id: string): Promise<void>;
  close(): Promise<void>;
}

const done = Promise.resolve();

export class MemoryJobStore implements JobStore {
  load(): Promise<JobRow[]> {
    return Promise.resolve([]);
  }
  insert(): Promise<void> {
    return done;
  }
  update(): Promise<void> {
    return done;
  }
  remove(): Promise<void> {
    return done;
  }
  close(): Promise<void> {
    return done;
  }
}
