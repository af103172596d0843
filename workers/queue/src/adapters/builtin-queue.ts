/**
 * One queue of the builtin adapter: ready jobs in enqueue order, delayed retries on timers, dead letters, and the
 * dispatch loop that keeps up to `concurrency` handlers running. Every state change is written through the store;
 * the job only becomes runnable once its insert is durable.
 */
import { InFlightMap } from '@svc/sdk';
import type { JobRow, JobStore, Outcome, Totals } from './builtin-store.js';
import type { DeadLetter, Job, JobHandler, QueueSettings, TopicStats } from './types.js';
import { backoffDelay, DEDUPE_WINDOW_MS, toErrorInfo } from './types.js';
import { QueueErrorCode } from '../error-codes.js';

/** Bound on the remembered completed ids per queue (memory stays flat under any load). */
const MAX_REMEMBERED = 100_000;

export class BuiltinQueue {
  private ready: JobRow[] = [];
  private readyHead = 0;
  private readonly delayed = new Map<string, { row: JobRow; timer: NodeJS.Timeout }>();
  private readonly dead = new Map<string, JobRow>();
  /** Running handlers by job id, each with the promise that settles when it finished and was recorded. */
  private readonly running = new InFlightMap<string, Promise<void>>();
  /** Fired at stop for the handlers still running then: one signal shared by all (no controller per job). */
  private readonly abort = new AbortController();
  /** Every job this queue holds (idempotency of enqueue by id). */
  private readonly jobs = new InFlightMap<string, JobRow>();
  /** Ids completed recently (id → when), oldest first: a producer's retry of a finished job is a no-op. */
  private readonly completed = new Map<string, number>();
  private readonly inserting = new Map<string, Promise<void>>();
  private handler: JobHandler | null = null;
  private stopped = false;
  /** Jobs completed and moved to dead letters: restored from the store, then counted here. */
  private readonly totals: Totals;

  constructor(
    readonly name: string,
    readonly settings: QueueSettings,
    private readonly store: JobStore,
    private readonly onStoreError: (err: unknown) => void,
    totals: Totals = { completed: 0, failed: 0 },
  ) {
    this.totals = { ...totals };
  }

  has(id: string): boolean {
    return this.jobs.has(id) || this.completed.has(id);
  }

  /** Adds a job; resolves once it is durable (a store that keeps nothing: at once, and the job may run now). */
  add(row: JobRow): Promise<void> {
    const insert = this.store.insert(row); // an immediate store refuses a job by throwing: it is not held then
    this.jobs.set(row.id, row);
    if (this.store.immediate) {
      this.pushReady(row);
      return insert;
    }
    return this.addDurable(row, insert);
  }

  private async addDurable(row: JobRow, insert: Promise<void>): Promise<void> {
    this.inserting.set(row.id, insert);
    try {
      await insert;
    } catch (err) {
      this.jobs.delete(row.id);
      throw err;
    } finally {
      this.inserting.delete(row.id);
    }
    this.pushReady(row);
  }

  /** For a second enqueue of an id: resolves when the first one is durable (rejects if it failed). */
  durable(id: string): Promise<void> {
    return this.inserting.get(id) ?? Promise.resolve();
  }

  /** Puts a row loaded from the store back in place (start-up recovery). */
  restore(row: JobRow, now: number): void {
    this.jobs.set(row.id, row);
    if (row.state === 'dead') this.dead.set(row.id, row);
    else if (row.state === 'delayed' && row.runAt > now) this.delay(row, row.runAt - now);
    else if (row.state === 'active' && row.attempts >= this.settings.maxAttempts) {
      const err = { code: QueueErrorCode.JobStalled, message: 'the worker stopped during the last attempt' };
      this.toDead(row, err);
    } else {
      void this.setState(row, 'waiting', false);
      this.ready.push(row);
    }
  }

  consume(handler: JobHandler): void {
    this.handler = handler;
    this.pump();
  }

  stats(): TopicStats {
    return {
      queue: this.name,
      waiting: this.ready.length - this.readyHead,
      active: this.running.size,
      delayed: this.delayed.size,
      dead: this.dead.size,
      completed: this.totals.completed,
      failed: this.totals.failed,
    };
  }

  deadLetters(offset: number, limit: number): { total: number; messages: DeadLetter[] } {
    const all = [...this.dead.values()];
    const page = all.slice(offset, offset + limit);
    return { total: all.length, messages: page.map((row) => toDeadLetter(row, this.store.data(row))) };
  }

  async redrive(id: string): Promise<boolean> {
    const row = this.dead.get(id);
    if (!row) return false;
    this.dead.delete(id);
    row.attempts = 0;
    row.lastError = null;
    row.failedAt = 0;
    await this.setState(row, 'waiting', true);
    this.pushReady(row);
    return true;
  }

  async redriveAll(): Promise<number> {
    const ids = [...this.dead.keys()];
    let n = 0;
    for (const id of ids) if (await this.redrive(id)) n++;
    return n;
  }

  async discard(id: string): Promise<boolean> {
    const row = this.dead.get(id);
    if (!row) return false;
    this.dead.delete(id);
    this.jobs.delete(id);
    await this.store.remove(row);
    return true;
  }

  /** Stops dispatching; waits up to `graceMs` for running handlers, then aborts the rest. */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    const pending = [...this.running.values()];
    if (pending.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((r) => (timer = setTimeout(r, graceMs)));
    await Promise.race([Promise.all(pending), grace]);
    clearTimeout(timer);
    if (this.running.size > 0) this.abort.abort(new Error('svc-queue is shutting down'));
  }

  private pushReady(row: JobRow): void {
    this.ready.push(row);
    this.pump();
  }

  private pump(): void {
    const handler = this.handler;
    if (!handler || this.stopped) return;
    while (this.running.size < this.settings.concurrency && this.readyHead < this.ready.length) {
      const row = this.ready[this.readyHead++]!;
      this.run(row, handler);
    }
    if (this.readyHead > 1024 && this.readyHead * 2 > this.ready.length) {
      this.ready = this.ready.slice(this.readyHead);
      this.readyHead = 0;
    }
  }

  private run(row: JobRow, handler: JobHandler): void {
    row.attempts += 1;
    void this.setState(row, 'active', false);
    let attempt: Promise<void>;
    try {
      attempt = handler(toJob(row, this.store.data(row), this.settings.maxAttempts), this.abort.signal);
    } catch (err) {
      attempt = Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    // settles on a later microtask, so `running` holds the job before complete / fail remove it
    const done = attempt.then(
      () => this.complete(row),
      (err: unknown) => this.fail(row, err),
    );
    this.running.set(row.id, done);
  }

  private complete(row: JobRow): void {
    this.running.delete(row.id);
    this.jobs.delete(row.id);
    if (row.dedupe !== false) this.remember(row.id);
    this.totals.completed += 1;
    this.store.remove(row, this.outcome('completed'), false).catch(this.onStoreError);
    this.pump();
  }

  private fail(row: JobRow, err: unknown): void {
    this.running.delete(row.id);
    if (this.stopped) return; // abandoned at shutdown: the stored row still says active, so it is recovered
    if (row.attempts >= this.settings.maxAttempts) this.toDead(row, toErrorInfo(err));
    else {
      row.lastError = toErrorInfo(err);
      const wait = backoffDelay(this.settings.backoffMs, row.attempts);
      row.runAt = Date.now() + wait;
      void this.setState(row, 'delayed', false);
      this.delay(row, wait);
    }
    this.pump();
  }

  private remember(id: string): void {
    const now = Date.now();
    this.completed.set(id, now);
    for (const [old, at] of this.completed) {
      if (at > now - DEDUPE_WINDOW_MS && this.completed.size <= MAX_REMEMBERED) break;
      this.completed.delete(old);
    }
  }

  private toDead(row: JobRow, err: { code: string; message: string }): void {
    row.lastError = err;
    row.failedAt = Date.now();
    this.dead.set(row.id, row);
    this.totals.failed += 1;
    void this.setState(row, 'dead', false, this.outcome('failed'));
  }

  private outcome(kind: Outcome['kind']): Outcome {
    return { queue: this.name, kind };
  }

  private delay(row: JobRow, wait: number): void {
    row.state = 'delayed';
    const timer = setTimeout(() => {
      this.delayed.delete(row.id);
      if (this.stopped) return;
      void this.setState(row, 'waiting', false);
      this.pushReady(row);
    }, wait);
    this.delayed.set(row.id, { row, timer });
  }

  /** Records a state change; `wait` makes the caller await durability (admin operations). */
  private setState(row: JobRow, state: JobRow['state'], wait: boolean, outcome?: Outcome): Promise<void> {
    row.state = state;
    const p = this.store.update(row, outcome, wait);
    if (wait) return p;
    p.catch(this.onStoreError);
    return Promise.resolve();
  }
}

function toJob(row: JobRow, data: unknown, maxAttempts: number): Job {
  return {
    id: row.id,
    queue: row.queue,
    function_id: row.function_id,
    data,
    traceparent: row.traceparent,
    baggage: row.baggage,
    condition_function_id: row.condition_function_id,
    attempt: row.attempts,
    maxAttempts,
    enqueuedAt: row.enqueuedAt,
  };
}

function toDeadLetter(row: JobRow, data: unknown): DeadLetter {
  return {
    id: row.id,
    queue: row.queue,
    function_id: row.function_id,
    data,
    attempts: row.attempts,
    error: row.lastError ?? { code: QueueErrorCode.JobFailed, message: '' },
    enqueued_at: row.enqueuedAt,
    failed_at: row.failedAt,
  };
}
