/**
 * The queue backend contract. svc-queue talks to exactly one backend, picked by name from the config
 * (`BuiltinQueueAdapter`, `KvserverAdapter`, `BrokerAdapter`); the conformance suite in `test/` runs against each.
 *
 * What a backend owns: its storage (the SQLite file, the Redis connections, the AMQP connection and channels), its
 * timers (poll, delay, checkpoint) and the consumers it runs for every queue passed to `consume`. It owns retry
 * scheduling: a handler that throws is retried after `backoffMs * 2^(attempt-1)` until `maxAttempts` deliveries
 * have been made, and then the job is moved to the queue's dead letters exactly once, with its last error and the
 * number of attempts made.
 *
 * Guarantees every backend gives:
 * - `enqueue` resolves only once the job is durable in the backend (file store: committed and fsynced; Redis: written
 *   to the server; RabbitMQ: confirmed by the broker). A resolved enqueue is never lost. Enqueuing an id that the
 *   queue holds, or completed within the last `DEDUPE_WINDOW_MS`, is a no-op (idempotent producer retries; not on
 *   RabbitMQ, which keeps no index of message ids).
 * - delivery is at least once: a job whose handler did not finish (the process died, the handler was cut off) is
 *   delivered again; duplicates happen only for such jobs.
 * - `fifo` queues deliver one job at a time in enqueue order (a failing job waits out its backoff behind the jobs
 *   queued before its retry); `concurrent` queues run up to `concurrency` handlers at once in this process.
 * - a job that keeps failing never blocks the other jobs of a `concurrent` queue.
 *
 * `close()` is idempotent. It stops taking new jobs, waits for running handlers to settle (at most `graceMs`,
 * default 5 s; a handler still running then is abandoned and will be redelivered), flushes what is pending to storage
 * and releases every connection and timer. No handler is called after `close()` resolved.
 */
import { QueueErrorCode } from '../error-codes.js';
import { textOf } from '@svc/sdk';

/** How long a completed job's id still makes a new enqueue with that id a no-op. */
export const DEDUPE_WINDOW_MS = 10 * 60_000;

/** What a producer hands over. `id` defaults to a fresh UUID; reusing an id makes the enqueue idempotent. */
export interface JobInput {
  id?: string;
  function_id: string;
  data: unknown;
  traceparent?: string | null;
  baggage?: string | null;
  /** For topic subscribers: the handler runs only when this function returns a truthy value. */
  condition_function_id?: string | null;
  /**
   * Default true: a completed job's id stays remembered for `DEDUPE_WINDOW_MS`. False for ids that are fresh by
   * construction (the engine's messageReceiptId), where remembering would only cost memory in the backend.
   */
  dedupe?: boolean;
}

/** A job as the handler sees it. */
export interface Job {
  id: string;
  queue: string;
  function_id: string;
  data: unknown;
  traceparent: string | null;
  baggage: string | null;
  condition_function_id: string | null;
  /** 1 for the first delivery, 2 for the first retry, ... */
  attempt: number;
  maxAttempts: number;
  enqueuedAt: number;
}

export type JobHandler = (job: Job, signal: AbortSignal) => Promise<void>;

/** Resolved per-queue settings (the adapter's defaults overridden by `queue_configs.<name>`). */
export interface QueueSettings {
  maxAttempts: number;
  backoffMs: number;
  concurrency: number;
  mode: 'concurrent' | 'fifo';
}

/** A backend's queue defaults from its adapter config; `fifo` always runs one job at a time. */
export function defaultSettings(options: {
  max_attempts: number;
  backoff_ms: number;
  concurrency: number;
  mode: 'concurrent' | 'fifo';
}): QueueSettings {
  const fifo = options.mode === 'fifo';
  return {
    maxAttempts: options.max_attempts,
    backoffMs: options.backoff_ms,
    concurrency: fifo ? 1 : options.concurrency,
    mode: options.mode,
  };
}

export interface ErrorInfo {
  code: string;
  message: string;
}

export interface DeadLetter {
  id: string;
  queue: string;
  function_id: string;
  data: unknown;
  attempts: number;
  error: ErrorInfo;
  enqueued_at: number;
  failed_at: number;
}

export interface TopicStats {
  queue: string;
  /** Ready to run. */
  waiting: number;
  /** A handler is running it. */
  active: number;
  /** Waiting out a retry backoff. */
  delayed: number;
  /** In dead letters now (goes down on redrive and discard). */
  dead: number;
  /**
   * Jobs whose handler finished successfully. A counter that only grows; since when depends on the backend (builtin
   * in-memory and RabbitMQ: since this svc-queue process started; builtin file and Redis: kept in the backend).
   */
  completed: number;
  /**
   * Jobs moved to dead letters after their last attempt failed, counted like `completed` (a redriven job that fails
   * again counts again). Unlike `dead`, redrive and discard do not lower it.
   */
  failed: number;
}

/** Counts of a queue nobody has used yet. */
export function emptyStats(queue: string): TopicStats {
  return { queue, waiting: 0, active: 0, delayed: 0, dead: 0, completed: 0, failed: 0 };
}

export interface DeadLetterPage {
  queue: string;
  total: number;
  offset: number;
  limit: number;
  messages: DeadLetter[];
}

export interface QueueBackend {
  readonly name: string;
  start(): Promise<void>;
  /** Resolves with the job id once the job is durable (see the guarantees above). */
  enqueue(queue: string, job: JobInput): Promise<string>;
  /** Starts consuming `queue` with `handler`; calling it again for the same queue is a no-op. */
  consume(queue: string, handler: JobHandler): Promise<void>;
  /** The resolved settings of a queue. */
  settings(queue: string): QueueSettings;
  listTopics(): Promise<TopicStats[]>;
  topicStats(queue: string): Promise<TopicStats>;
  listDeadLetters(queue: string, offset: number, limit: number): Promise<DeadLetterPage>;
  /** Moves every dead letter of `queue` back into the queue with a fresh attempt count; returns how many. */
  redrive(queue: string): Promise<number>;
  /** Moves one dead letter back into its queue; false when no such dead letter exists. */
  redriveMessage(queue: string, id: string): Promise<boolean>;
  /** Deletes one dead letter for good; false when no such dead letter exists. */
  discardMessage(queue: string, id: string): Promise<boolean>;
  close(graceMs?: number): Promise<void>;
}

/** Per-queue overrides from `queue_configs`. */
export interface QueueOverride {
  max_retries?: number | undefined;
  concurrency?: number | undefined;
  type?: string | undefined;
}

/**
 * Defaults merged with a queue's override. `max_retries` counts retries after the first delivery, so attempts =
 * max_retries + 1. `type: fifo` or `concurrent` selects the mode; `standard` (or none) keeps the adapter's `mode`.
 */
export function resolveSettings(defaults: QueueSettings, override: QueueOverride | undefined): QueueSettings {
  if (!override) return defaults;
  const mode = override.type === 'fifo' || override.type === 'concurrent' ? override.type : defaults.mode;
  return {
    maxAttempts: override.max_retries !== undefined ? override.max_retries + 1 : defaults.maxAttempts,
    backoffMs: defaults.backoffMs,
    concurrency: mode === 'fifo' ? 1 : (override.concurrency ?? defaults.concurrency),
    mode,
  };
}

/** Delay before the retry that follows failed attempt `attempt` (1-based): backoff, 2×backoff, 4×backoff, ... */
export function backoffDelay(backoffMs: number, attempt: number): number {
  return backoffMs * 2 ** Math.max(0, attempt - 1);
}

/** Turns anything thrown into the `{code, message}` stored with a dead letter. */
export function toErrorInfo(err: unknown): ErrorInfo {
  if (err && typeof err === 'object') {
    const e = err as { code?: unknown; message?: unknown; detail?: unknown };
    const code = typeof e.code === 'string' && e.code ? e.code : QueueErrorCode.JobFailed;
    // An InvocationError's `message` starts with its code; `detail` is the message alone.
    const text = typeof e.detail === 'string' ? e.detail : e.message;
    const message = typeof text === 'string' ? text : textOf(err);
    return { code, message };
  }
  return { code: QueueErrorCode.JobFailed, message: String(err) };
}
