/**
 * Which queues this process consumes: every queue it enqueued to or has subscribers on, the queues named in
 * `queue_configs`, and every queue the backend already knows (jobs left from before a restart, or queues other
 * svc-queue processes created on a shared backend, picked up by a periodic refresh).
 *
 * At most `max_queues` of them: a queue costs a consumer (with BullMQ a Redis connection and ~150 KiB), and a
 * worker that puts an id in its queue names would otherwise open one per item until Redis refuses connections to
 * every client. Past the limit a new queue is refused with `queue_limit` (the caller's enqueue fails, nothing is
 * stored); queues the backend knows beyond it are left to other processes, with a warning.
 */
import { InvocationError } from '@svc/sdk';
import type { Logger } from 'pino';
import type { JobHandler, QueueBackend } from './adapters/types.js';
import { QueueErrorCode } from './error-codes.js';

export class Consumers {
  private readonly started = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  /** Queues the last refresh found in the backend and left alone (over the limit); warned about when it changes. */
  private leftOut = 0;

  constructor(
    private readonly backend: QueueBackend,
    private readonly handler: JobHandler,
    private readonly logger: Logger,
    private readonly maxQueues = Number.POSITIVE_INFINITY,
  ) {}

  async start(configured: string[], refreshMs: number): Promise<void> {
    for (const q of configured) await this.consume(q);
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), refreshMs);
    this.timer.unref();
  }

  /** Whether `queue` is consumed already (the enqueue path skips `ensure` then: no promise per job). */
  has(queue: string): boolean {
    return this.started.has(queue);
  }

  /** Consumes `queue` from now on; refused with `queue_limit` when it would be one more than `max_queues`. */
  async ensure(queue: string): Promise<void> {
    if (this.started.has(queue)) return;
    if (this.started.size >= this.maxQueues) {
      throw new InvocationError({
        code: QueueErrorCode.QueueLimit,
        message:
          `svc-queue consumes ${this.maxQueues} queues already (max_queues), so it starts no queue '${queue}'. ` +
          'A queue name with an id in it makes a queue (and with Redis a connection) per item: put the id in the ' +
          'data instead, or raise max_queues',
      });
    }
    await this.consume(queue);
  }

  close(): void {
    clearInterval(this.timer);
  }

  private async consume(queue: string): Promise<void> {
    if (this.started.has(queue)) return;
    this.started.add(queue);
    try {
      await this.backend.consume(queue, this.handler);
    } catch (err) {
      this.started.delete(queue);
      throw err;
    }
  }

  private async refresh(): Promise<void> {
    try {
      let leftOut = 0;
      for (const t of await this.backend.listTopics()) {
        if (this.started.has(t.queue)) continue;
        if (this.started.size >= this.maxQueues) leftOut++;
        else await this.consume(t.queue);
      }
      if (leftOut !== this.leftOut && leftOut > 0) {
        this.logger.warn(
          { left_out: leftOut, max_queues: this.maxQueues },
          `${leftOut} queues of the backend are not consumed by this process: it consumes max_queues (${this.maxQueues}) already`,
        );
      }
      this.leftOut = leftOut;
    } catch (err) {
      this.logger.warn({ err }, 'could not list queues; retrying later');
    }
  }
}
