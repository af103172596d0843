/**
 * `modules::queue::adapters::Bridge`: the queues of another engine (`bridge_url`), used as if local. That engine's
 * svc-queue owns durability, retries, backoff, dead letters and the per-queue settings; this adapter owns one SDK
 * connection to it (reconnecting on its own, registrations replayed) and runs the jobs here.
 *
 * A job enqueued here is put on the remote queue as an envelope targeting `queue::bridge::deliver::<queue>`
 * (bridge-envelope.ts). `consume()` registers that function on the remote engine; the remote svc-queue calls it
 * for each attempt and the call runs the local handler, whose result or error is the attempt's outcome, so
 * retries, backoff and dead letters work exactly as on the remote. Every engine consuming the same queue name
 * through a bridge shares that queue (like replicas of one svc-queue): a job may run on any of them, so each must
 * provide the functions its jobs call.
 *
 * While no bridging process consumes the queue, the remote's attempts fail with `function_not_found` and count
 * like any attempt whose function is missing: a restart of the only consuming process should take less than the
 * queue's first backoffs (run two replicas to avoid the gap).
 */
import {
  InFlightSet,
  InvocationError,
  readyWithin,
  registerWorker,
  type HandlerContext,
  type SvcClient,
} from '@svc/sdk';
import type { Logger } from 'pino';
import { QueueErrorCode } from '../error-codes.js';
import { deliverFunctionId, jobOf, readEnvelope, toEnvelope, unwrapDeadLetter } from './bridge-envelope.js';
import {
  defaultSettings,
  type DeadLetterPage,
  type JobHandler,
  type JobInput,
  type QueueBackend,
  type QueueSettings,
  type TopicStats,
} from './types.js';

export interface BridgeQueueOptions {
  bridge_url: string;
  logger: Logger;
  /** How long `start()` waits for the remote engine; default 10000 ms. */
  connectTimeoutMs?: number;
  /** Deadline of each forwarded call; default 10000 ms. */
  callTimeoutMs?: number;
}

export class BridgeQueueAdapter implements QueueBackend {
  readonly name = 'bridge';
  private client: SvcClient | undefined;
  private readonly consumers = new Map<string, JobHandler>();
  private readonly running = new InFlightSet<Promise<unknown>>();
  private closed = false;

  constructor(private readonly options: BridgeQueueOptions) {}

  async start(): Promise<void> {
    const client = registerWorker(this.options.bridge_url, {
      workerName: 'svc-queue-bridge',
      logger: this.options.logger.child({ bridge: this.options.bridge_url }),
      reconnectionConfig: { initialDelayMs: 100, maxDelayMs: 2000 },
    });
    const timeoutMs = this.options.connectTimeoutMs ?? 10_000;
    await readyWithin(client, timeoutMs, () => unreachable(this.options.bridge_url, timeoutMs));
    this.client = client;
  }

  async enqueue(queue: string, job: JobInput): Promise<string> {
    const envelope = toEnvelope(job);
    const function_id = deliverFunctionId(queue);
    if (job.dedupe === false && job.id !== undefined) {
      const payload = { queue, function_id, data: envelope, messageReceiptId: job.id, traceparent: job.traceparent };
      const r = await this.call<{ messageReceiptId: string }>('engine::queue::enqueue', payload);
      return r.messageReceiptId;
    }
    const payload = { queue, function_id, data: envelope, ...(job.id !== undefined ? { id: job.id } : {}) };
    const r = await this.call<{ messageReceiptId: string }>('queue::enqueue', payload);
    return r.messageReceiptId;
  }

  async consume(queue: string, handler: JobHandler): Promise<void> {
    if (this.consumers.has(queue)) return;
    const client = this.remote();
    this.consumers.set(queue, handler);
    client.registerFunction(deliverFunctionId(queue), (data: unknown, ctx: HandlerContext) =>
      this.deliver(queue, handler, data, ctx),
    );
    await this.call('engine::queue::ensure', { queue });
  }

  /** The remote svc-queue's settings apply; these are the documented defaults, for display only. */
  settings(): QueueSettings {
    return defaultSettings({ max_attempts: 3, backoff_ms: 1000, concurrency: 10, mode: 'concurrent' });
  }

  async listTopics(): Promise<TopicStats[]> {
    const r = await this.call<{ topics?: TopicStats[] }>('queue::list_topics', {});
    return (r.topics ?? []).map(stats);
  }

  async topicStats(queue: string): Promise<TopicStats> {
    return stats(await this.call<TopicStats>('queue::topic_stats', { queue }));
  }

  async listDeadLetters(queue: string, offset: number, limit: number): Promise<DeadLetterPage> {
    const page = await this.call<DeadLetterPage>('queue::dlq_messages', { queue, offset, limit });
    return {
      queue: page.queue,
      total: page.total,
      offset: page.offset,
      limit: page.limit,
      messages: page.messages.map(unwrapDeadLetter),
    };
  }

  async redrive(queue: string): Promise<number> {
    return (await this.call<{ redriven: number }>('queue::redrive', { queue })).redriven;
  }

  redriveMessage(queue: string, id: string): Promise<boolean> {
    return this.ifFound(this.call('queue::redrive_message', { queue, message_id: id }));
  }

  discardMessage(queue: string, id: string): Promise<boolean> {
    return this.ifFound(this.call('queue::discard_message', { queue, message_id: id }));
  }

  async close(graceMs = 5000): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise((r) => (timer = setTimeout(r, graceMs)));
    await Promise.race([Promise.allSettled([...this.running]), grace]);
    clearTimeout(timer);
    // Attempts still running are abandoned: the remote sees them fail and delivers them again.
    await this.client?.shutdown();
  }

  private async deliver(queue: string, handler: JobHandler, data: unknown, ctx: HandlerContext): Promise<null> {
    const envelope = readEnvelope(data);
    if (envelope === undefined) {
      throw new InvocationError({
        code: QueueErrorCode.InvalidArguments,
        message: `not a bridged job of queue '${queue}'`,
      });
    }
    if (this.closed) throw closedError();
    const run = handler(jobOf(queue, envelope, ctx.metadata), ctx.signal);
    this.running.add(run);
    try {
      await run;
    } catch (err) {
      throw keepCode(err);
    } finally {
      this.running.delete(run);
    }
    return null;
  }

  private async ifFound(call: Promise<unknown>): Promise<boolean> {
    try {
      await call;
      return true;
    } catch (err) {
      if (err instanceof InvocationError && err.code === QueueErrorCode.NotFound) return false;
      throw err;
    }
  }

  private call<T>(functionId: string, payload: unknown): Promise<T> {
    return this.remote().trigger<T>({
      function_id: functionId,
      payload,
      timeoutMs: this.options.callTimeoutMs ?? 10_000,
    });
  }

  private remote(): SvcClient {
    if (this.closed || this.client === undefined) throw closedError();
    return this.client;
  }
}

/** The remote's counts as they are; `completed` and `failed` are 0 from a remote that does not report them. */
function stats(t: Omit<TopicStats, 'completed' | 'failed'> & Partial<TopicStats>): TopicStats {
  const { queue, waiting, active, delayed, dead } = t;
  return { queue, waiting, active, delayed, dead, completed: t.completed ?? 0, failed: t.failed ?? 0 };
}

/** A handler error with a code of its own keeps it on the remote dead letter (the SDK would say invocation_failed). */
function keepCode(err: unknown): unknown {
  if (err instanceof InvocationError || !(err instanceof Error)) return err;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && code !== '' ? new InvocationError({ code, message: err.message }) : err;
}

function closedError(): Error {
  return Object.assign(new Error('the bridged queue is closed; restart svc-queue to use it again'), {
    code: QueueErrorCode.QueueClosed,
  });
}

function unreachable(url: string, ms: number): Error {
  return Object.assign(new Error(`engine ${url} not reachable in ${ms} ms`), {
    code: QueueErrorCode.QueueBridgeUnreachable,
  });
}
