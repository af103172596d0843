/**
 * `BuiltinQueueAdapter`: queues inside the svc-queue process, on an in-memory store or a SQLite file that is
 * durable before an enqueue is acknowledged. One process owns the file; several processes do not share work
 * (use `KvserverAdapter` or `BrokerAdapter` for that).
 */
import fs from 'node:fs';
import { newUuid } from '@svc/sdk';
import { BuiltinQueue } from './builtin-queue.js';
import { FileJobStore, storeFile } from './builtin-file-store.js';
import { MemoryJobStore, type JobRow, type JobStore, type Totals } from './builtin-store.js';
import type {
  DeadLetterPage,
  JobHandler,
  JobInput,
  QueueBackend,
  QueueOverride,
  QueueSettings,
  TopicStats,
} from './types.js';
import { defaultSettings, emptyStats, resolveSettings } from './types.js';
import { DEFAULT_MAX_STORE_BYTES } from '@svc/config-kit';
import { QueueErrorCode } from '../error-codes.js';

export interface BuiltinOptions {
  max_attempts: number;
  backoff_ms: number;
  concurrency: number;
  poll_interval_ms: number;
  mode: 'concurrent' | 'fifo';
  store_method: 'file_based' | 'in_memory';
  file_path?: string | undefined;
  save_interval_ms: number;
  /** Jobs the in-memory store holds at most (`max_store_bytes`); default `DEFAULT_MAX_STORE_BYTES`. */
  max_store_bytes?: number | undefined;
  queue_configs?: Record<string, QueueOverride> | undefined;
  /** Called when a background write (job started, completed, retried) could not be stored. */
  onStoreError?: (err: unknown) => void;
  /**
   * Start-up lines of the file store: one before it opens a file of `largeStoreBytes` or more (its check and load
   * read the whole file: 23 s for 4.7 GB), one after it recovered any job.
   */
  onStartup?: (fields: Record<string, unknown>, message: string) => void;
  /** The file size from which opening the store is announced; default `LARGE_STORE_BYTES`. */
  largeStoreBytes?: number;
}

/** A store file this large takes a second or more to check and load at start-up: svc-queue says so first. */
export const LARGE_STORE_BYTES = 256 * 1024 * 1024;

export class BuiltinQueueAdapter implements QueueBackend {
  readonly name = 'BuiltinQueueAdapter';
  private readonly queues = new Map<string, BuiltinQueue>();
  private store: JobStore | null = null;
  private seq = 0;
  /** Totals the store kept from earlier runs, handed to each queue as it is created. */
  private totals = new Map<string, Totals>();
  private closing: Promise<void> | null = null;
  private readonly defaults: QueueSettings;

  constructor(private readonly options: BuiltinOptions) {
    this.defaults = defaultSettings(options);
  }

  async start(): Promise<void> {
    const started = performance.now();
    if (this.options.store_method === 'file_based') {
      if (!this.options.file_path) throw new Error('file_path is required when store_method is file_based');
      this.announceLargeStore(this.options.file_path);
      this.store = new FileJobStore(this.options.file_path, this.options.save_interval_ms);
    } else {
      this.store = new MemoryJobStore(this.options.max_store_bytes ?? DEFAULT_MAX_STORE_BYTES);
    }
    this.totals = await this.store.loadTotals();
    for (const queue of this.totals.keys()) this.queue(queue);
    const now = Date.now();
    let recovered = 0;
    const withJobs = new Set<string>();
    for (const row of await this.store.load()) {
      this.seq = Math.max(this.seq, row.seq);
      this.queue(row.queue).restore(row, now);
      withJobs.add(row.queue);
      recovered++;
    }
    if (recovered > 0) this.reportRecovered(recovered, withJobs, performance.now() - started);
  }

  private reportRecovered(jobs: number, withJobs: Set<string>, elapsedMs: number): void {
    const sum = { waiting: 0, delayed: 0, dead: 0 };
    for (const name of withJobs) {
      const s = this.queue(name).stats();
      sum.waiting += s.waiting;
      sum.delayed += s.delayed;
      sum.dead += s.dead;
    }
    const ms = Math.round(elapsedMs);
    const queues = withJobs.size;
    this.options.onStartup?.(
      { jobs, queues, ...sum, ms },
      `queue store: ${jobs} job${jobs === 1 ? '' : 's'} recovered in ${queues} queue${queues === 1 ? '' : 's'} ` +
        `(waiting ${sum.waiting}, delayed ${sum.delayed}, dead letters ${sum.dead}) in ${ms} ms`,
    );
  }

  /** Says that start-up will take a while before the store reads a large file (nothing is logged while it does). */
  private announceLargeStore(dir: string): void {
    const file = storeFile(dir);
    let bytes = 0;
    for (const f of [file, `${file}-wal`]) {
      try {
        bytes += fs.statSync(f, { throwIfNoEntry: false })?.size ?? 0;
      } catch {
        return; // unreadable: opening the store says why
      }
    }
    if (bytes < (this.options.largeStoreBytes ?? LARGE_STORE_BYTES)) return;
    const mib = Math.round(bytes / (1024 * 1024));
    this.options.onStartup?.(
      { file, bytes },
      `queue store: checking and loading ${file} (${mib} MiB); svc-queue is ready once every job is recovered`,
    );
  }

  settings(queue: string): QueueSettings {
    return resolveSettings(this.defaults, this.options.queue_configs?.[queue]);
  }

  async enqueue(queue: string, input: JobInput): Promise<string> {
    if (this.closing)
      throw Object.assign(new Error('svc-queue is shutting down'), { code: QueueErrorCode.QueueClosed });
    const q = this.queue(queue);
    const id = input.id ?? newUuid();
    if (q.has(id)) {
      await q.durable(id); // the first enqueue of this id may still be on its way to disk
      return id;
    }
    const row: JobRow = {
      id,
      queue,
      seq: ++this.seq,
      state: 'waiting',
      attempts: 0,
      runAt: 0,
      function_id: input.function_id,
      data: input.data ?? null,
      traceparent: input.traceparent ?? null,
      baggage: input.baggage ?? null,
      condition_function_id: input.condition_function_id ?? null,
      lastError: null,
      enqueuedAt: Date.now(),
      failedAt: 0,
    };
    if (input.dedupe === false) row.dedupe = false;
    await q.add(row);
    return id;
  }

  consume(queue: string, handler: JobHandler): Promise<void> {
    this.queue(queue).consume(handler);
    return Promise.resolve();
  }

  listTopics(): Promise<TopicStats[]> {
    return Promise.resolve([...this.queues.values()].map((q) => q.stats()));
  }

  topicStats(queue: string): Promise<TopicStats> {
    const q = this.queues.get(queue);
    return Promise.resolve(q ? q.stats() : emptyStats(queue));
  }

  listDeadLetters(queue: string, offset: number, limit: number): Promise<DeadLetterPage> {
    const q = this.queues.get(queue);
    const page = q ? q.deadLetters(offset, limit) : { total: 0, messages: [] };
    return Promise.resolve({ queue, offset, limit, ...page });
  }

  async redrive(queue: string): Promise<number> {
    return (await this.queues.get(queue)?.redriveAll()) ?? 0;
  }

  async redriveMessage(queue: string, id: string): Promise<boolean> {
    return (await this.queues.get(queue)?.redrive(id)) ?? false;
  }

  async discardMessage(queue: string, id: string): Promise<boolean> {
    return (await this.queues.get(queue)?.discard(id)) ?? false;
  }

  close(graceMs = 5000): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.queues.values()].map((q) => q.stop(graceMs)));
      await this.store?.close();
    })();
    return this.closing;
  }

  private queue(name: string): BuiltinQueue {
    let q = this.queues.get(name);
    if (!q) {
      // A handler that finishes after close() cannot record it; that job simply runs again after the restart.
      const onError = (err: unknown) => {
        if (!this.closing) this.options.onStoreError?.(err);
      };
      const store = this.store ?? new MemoryJobStore(this.options.max_store_bytes ?? DEFAULT_MAX_STORE_BYTES);
      q = new BuiltinQueue(name, this.settings(name), store, onError, this.totals.get(name));
      this.queues.set(name, q);
    }
    return q;
  }
}
