/**
 * Which queues this process consumes: every queue it enqueued to or has subscribers on, the queues named in
 * `queue_configs`, and every queue the backend already knows (jobs left from before a restart, or queues other
 * svc-queue processes created on a shared backend, picked up by a periodic refresh).
 */
import type { Logger } from 'pino';
import type { JobHandler, QueueBackend } from './adapters/types.js';

export class Consumers {
  private readonly started = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly backend: QueueBackend,
    private readonly handler: JobHandler,
    private readonly logger: Logger,
  ) {}

  async start(configured: string[], refreshMs: number): Promise<void> {
    for (const q of configured) await this.ensure(q);
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), refreshMs);
    this.timer.unref();
  }

  /** Whether `queue` is consumed already (the enqueue path skips `ensure` then: no promise per job). */
  has(queue: string): boolean {
    return this.started.has(queue);
  }

  async ensure(queue: string): Promise<void> {
    if (this.started.has(queue)) return;
    this.started.add(queue);
    try {
      await this.backend.consume(queue, this.handler);
    } catch (err) {
      this.started.delete(queue);
      throw err;
    }
  }

  close(): void {
    clearInterval(this.timer);
  }

  private async refresh(): Promise<void> {
    try {
      for (const t of await this.backend.listTopics()) await this.ensure(t.queue);
    } catch (err) {
      this.logger.warn({ err }, 'could not list queues; retrying later');
    }
  }
}
