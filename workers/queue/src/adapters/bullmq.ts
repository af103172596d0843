/**
 * `KvserverAdapter`: queues in Redis through BullMQ, shared by every svc-queue process on the same `kvserver_url`
 * and `prefix`. BullMQ's failed set is the dead-letter list; retries use its exponential backoff; a job whose worker
 * died is found by the stalled-job check (`lock_duration_ms`, `stalled_interval_ms`) and delivered again.
 * Durability is Redis's: an enqueue is acknowledged once Redis accepted the write (run Redis with
 * `appendfsync always` and `maxmemory-policy noeviction` when acknowledged jobs must survive a Redis crash).
 *
 * Completed jobs are removed at once (`removeOnComplete`), so BullMQ's completed set stays empty; the `completed`
 * and `failed` totals are BullMQ's job metrics instead (`metrics` on the worker, read with `getMetrics`): counters
 * in Redis, added to by the same script that finishes the job, shared by every process and kept across restarts.
 */
import { randomUUID } from 'node:crypto';
import { Job as BullJob, MetricsTime, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { InFlightSet } from '@svc/sdk';
import type {
  DeadLetter,
  DeadLetterPage,
  ErrorInfo,
  JobHandler,
  JobInput,
  QueueBackend,
  QueueOverride,
  QueueSettings,
  TopicStats,
} from './types.js';
import { DEDUPE_WINDOW_MS, defaultSettings, emptyStats, resolveSettings, toErrorInfo } from './types.js';
import { QueueErrorCode } from '../error-codes.js';

export interface KvserverOptions {
  kvserver_url: string;
  prefix: string;
  max_attempts: number;
  backoff_ms: number;
  concurrency: number;
  mode: 'concurrent' | 'fifo';
  lock_duration_ms: number;
  stalled_interval_ms: number;
  queue_configs?: Record<string, QueueOverride> | undefined;
  /** Told about a Redis setting that can lose acknowledged jobs. */
  onWarning?: (message: string) => void;
}

interface Payload {
  function_id: string;
  data: unknown;
  traceparent: string | null;
  baggage: string | null;
  condition_function_id: string | null;
  last_error?: ErrorInfo;
}

/** BullMQ reserves `:` in queue names; function ids (`orders::create`) are common queue names. */
const encodeName = (queue: string): string => encodeURIComponent(queue);

/**
 * Job ids are the producer's opaque strings, but BullMQ refuses custom ids that look like integers or contain `:`.
 * Stored as `~` + the URI-encoded id; read back through `fromJobId`.
 */
const toJobId = (id: string): string => `~${encodeURIComponent(id)}`;
const fromJobId = (jobId: string | undefined): string => {
  if (!jobId?.startsWith('~')) return jobId ?? '';
  try {
    return decodeURIComponent(jobId.slice(1));
  } catch {
    return jobId;
  }
};

export class KvserverAdapter implements QueueBackend {
  readonly name = 'KvserverAdapter';
  private redis: Redis | null = null;
  private readonly queues = new Map<string, Queue>();
  private readonly workers = new Map<string, Worker>();
  private readonly known = new Set<string>();
  private readonly running = new InFlightSet<Promise<unknown>>();
  private closing: Promise<void> | null = null;
  private readonly defaults: QueueSettings;

  constructor(private readonly options: KvserverOptions) {
    this.defaults = defaultSettings(options);
  }

  private get topicsKey(): string {
    return `${this.options.prefix}:svc-queue:topics`;
  }

  async start(): Promise<void> {
    this.redis = new Redis(this.options.kvserver_url, { maxRetriesPerRequest: null, lazyConnect: true });
    await this.redis.connect();
    await this.checkEviction();
  }

  /** Redis evicting keys under memory pressure would silently drop acknowledged jobs. */
  private async checkEviction(): Promise<void> {
    try {
      const reply = (await this.conn().config('GET', 'maxmemory-policy')) as string[];
      const policy = reply[1];
      if (policy && policy !== 'noeviction') {
        this.options.onWarning?.(
          `Redis maxmemory-policy is '${policy}': under memory pressure Redis may evict queued jobs; set it to 'noeviction'`,
        );
      }
    } catch {
      // CONFIG may be disabled (managed Redis); nothing to check then
    }
  }

  settings(queue: string): QueueSettings {
    return resolveSettings(this.defaults, this.options.queue_configs?.[queue]);
  }

  async enqueue(queue: string, input: JobInput): Promise<string> {
    if (this.closing)
      throw Object.assign(new Error('svc-queue is shutting down'), { code: QueueErrorCode.QueueClosed });
    const q = await this.queue(queue);
    const s = this.settings(queue);
    const given = input.id;
    const id = given ?? randomUUID();
    const payload: Payload = {
      function_id: input.function_id,
      data: input.data ?? null,
      traceparent: input.traceparent ?? null,
      baggage: input.baggage ?? null,
      condition_function_id: input.condition_function_id ?? null,
    };
    await q.add(input.function_id, payload, {
      jobId: toJobId(id),
      attempts: s.maxAttempts,
      backoff: { type: 'exponential', delay: s.backoffMs },
      removeOnComplete: true,
      removeOnFail: false,
      // A producer's retry with the same id after the job already completed must not run it again.
      ...(given && input.dedupe !== false ? { deduplication: { id: toJobId(given), ttl: DEDUPE_WINDOW_MS } } : {}),
    });
    return id;
  }

  async consume(queue: string, handler: JobHandler): Promise<void> {
    if (this.workers.has(queue) || this.closing) return;
    const s = this.settings(queue);
    const q = await this.queue(queue);
    // fifo is one job at a time across every process; the setting lives in Redis, so clear it when not fifo.
    if (s.mode === 'fifo') await q.setGlobalConcurrency(1);
    else await q.removeGlobalConcurrency();
    const worker = new Worker<Payload>(
      encodeName(queue),
      async (job, _token, signal) => {
        const attempt = job.attemptsMade + 1;
        const d = job.data;
        const jobView = {
          id: fromJobId(job.id),
          queue,
          function_id: d.function_id,
          data: d.data,
          traceparent: d.traceparent,
          baggage: d.baggage,
          condition_function_id: d.condition_function_id,
          attempt,
          maxAttempts: s.maxAttempts,
          enqueuedAt: job.timestamp,
        };
        const run = handler(jobView, signal ?? new AbortController().signal);
        this.running.add(run);
        try {
          await run;
        } catch (err) {
          const info = toErrorInfo(err);
          // Keep the error code with the job: BullMQ itself stores only the message.
          if (attempt >= s.maxAttempts) await job.updateData({ ...d, last_error: info }).catch(() => undefined);
          throw new Error(info.message || info.code);
        } finally {
          this.running.delete(run);
        }
      },
      {
        connection: this.conn(),
        prefix: this.options.prefix,
        concurrency: s.concurrency,
        lockDuration: this.options.lock_duration_ms,
        stalledInterval: this.options.stalled_interval_ms,
        maxStalledCount: s.maxAttempts,
        // Counts completed and failed (dead-lettered) jobs in Redis, plus an hour of per-minute points.
        metrics: { maxDataPoints: MetricsTime.ONE_HOUR },
      },
    );
    worker.on('error', () => undefined); // connection errors: ioredis reconnects; BullMQ retries its loop
    this.workers.set(queue, worker);
  }

  async listTopics(): Promise<TopicStats[]> {
    const names = await this.conn().smembers(this.topicsKey);
    return Promise.all(names.sort().map((n) => this.topicStats(n)));
  }

  async topicStats(queue: string): Promise<TopicStats> {
    const q = await this.existing(queue);
    if (q === undefined) return emptyStats(queue);
    const [c, completed, failed] = await Promise.all([
      q.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized'),
      q.getMetrics('completed', 0, 0),
      q.getMetrics('failed', 0, 0),
    ]);
    return {
      queue,
      waiting: (c.waiting ?? 0) + (c.prioritized ?? 0),
      active: c.active ?? 0,
      delayed: c.delayed ?? 0,
      dead: c.failed ?? 0,
      completed: completed.meta.count,
      failed: failed.meta.count,
    };
  }

  async listDeadLetters(queue: string, offset: number, limit: number): Promise<DeadLetterPage> {
    const q = await this.existing(queue);
    if (q === undefined) return { queue, total: 0, offset, limit, messages: [] };
    const total = await q.getFailedCount();
    const jobs = limit > 0 ? await q.getFailed(offset, offset + limit - 1) : [];
    const messages = jobs.filter((j): j is BullJob<Payload> => Boolean(j)).map((j) => toDeadLetter(queue, j));
    return { queue, total, offset, limit, messages };
  }

  async redrive(queue: string): Promise<number> {
    const q = await this.existing(queue);
    if (q === undefined) return 0;
    let n = 0;
    for (;;) {
      const jobs = await q.getFailed(0, 99);
      if (jobs.length === 0) return n;
      for (const j of jobs) if (j && (await retry(j))) n++;
    }
  }

  async redriveMessage(queue: string, id: string): Promise<boolean> {
    const job = await this.failedJob(queue, id);
    return job ? retry(job) : false;
  }

  async discardMessage(queue: string, id: string): Promise<boolean> {
    const job = await this.failedJob(queue, id);
    if (!job) return false;
    await job.remove();
    return true;
  }

  close(graceMs = 5000): Promise<void> {
    this.closing ??= (async () => {
      const settled = await settleWithin([...this.running], graceMs);
      // force: do not wait for abandoned handlers; their locks expire and another process picks the jobs up
      await Promise.all([...this.workers.values()].map((w) => w.close(!settled)));
      await Promise.all([...this.queues.values()].map((q) => q.close()));
      this.redis?.disconnect();
    })();
    return this.closing;
  }

  private async failedJob(queue: string, id: string): Promise<BullJob<Payload> | null> {
    const q = await this.existing(queue);
    if (q === undefined) return null;
    const job = (await BullJob.fromId<Payload>(q, toJobId(id))) ?? null;
    if (!job || !(await job.isFailed())) return null;
    return job;
  }

  /**
   * The queue when this process or another one (the shared registry in Redis) has it, else undefined: reading a
   * queue never creates it. A BullMQ `Queue` for every name a caller tried stayed in memory (20,000 names: +152 MiB)
   * and left a `meta` key in Redis for each.
   */
  private async existing(name: string): Promise<Queue | undefined> {
    if (this.queues.has(name) || this.known.has(name)) return this.queue(name, false);
    return (await this.conn().sismember(this.topicsKey, name)) === 1 ? this.queue(name, false) : undefined;
  }

  private conn(): Redis {
    if (!this.redis) throw new Error('KvserverAdapter is not started');
    return this.redis;
  }

  private async queue(name: string, remember = true): Promise<Queue> {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(encodeName(name), { connection: this.conn(), prefix: this.options.prefix });
      q.on('error', () => undefined);
      this.queues.set(name, q);
    }
    if (remember && !this.known.has(name)) {
      await this.conn().sadd(this.topicsKey, name);
      this.known.add(name);
    }
    return q;
  }
}

async function retry(job: BullJob): Promise<boolean> {
  try {
    await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    return true;
  } catch {
    return false; // someone else redrove or discarded it first
  }
}

/** True when every promise settled within `ms`. */
async function settleWithin(promises: Promise<unknown>[], ms: number): Promise<boolean> {
  if (promises.length === 0) return true;
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms)));
  const all = Promise.allSettled(promises).then(() => true);
  const settled = await Promise.race([all, grace]);
  clearTimeout(timer);
  return settled;
}

function toDeadLetter(queue: string, j: BullJob<Payload>): DeadLetter {
  const d = j.data;
  return {
    id: fromJobId(j.id),
    queue,
    function_id: d.function_id,
    data: d.data,
    attempts: j.attemptsMade,
    error: d.last_error ?? { code: QueueErrorCode.JobFailed, message: j.failedReason ?? '' },
    enqueued_at: j.timestamp,
    failed_at: j.finishedOn ?? 0,
  };
}
