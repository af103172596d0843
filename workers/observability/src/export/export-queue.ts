/**
 * A bounded queue in front of one OTLP exporter: items wait at most `delayMs` (or until `maxBatchSize` of them
 * are waiting) and go out in batches of at most `maxBatchSize`, one export at a time. Telemetry never backs up:
 * an item that finds the queue full is dropped, and so is a batch the exporter fails or that takes longer than
 * `timeoutMs` (the exporter has the same timeout; this one also frees the queue if its callback never comes).
 * Everything is counted (`sent`, `failed`, `dropped`, in items), and problems are logged at `warn` for the first
 * few, then at most once a minute with the counts.
 *
 * A receiver that fails `FAILURES_BEFORE_PAUSE` exports in a row is taken to be down: for a pause (5 s, doubling
 * up to a minute while it stays down) the queue takes nothing (`accepting` is false, so callers skip converting
 * what would only be dropped; `refuse` counts it) and drops what it held; the first export after the pause tries
 * the receiver again. A successful export ends it all. So the default setup (`exporter: both` with no collector
 * listening) does not pay for converting and serialising every span only to fail.
 *
 * Why not the SDK's `BatchSpanProcessor` / `BatchLogRecordProcessor`: they take spans and records as they end in
 * this process and count their drops privately; here the items arrive already in batches from other processes,
 * metrics have no batch processor (a `MetricReader` collects from a `MeterProvider`, not from decoded points), and
 * `otel::status` reports one set of counters for the three signals.
 */
import type { Logger } from 'pino';

export interface ExportQueueOptions {
  /** `traces`, `metrics` or `logs`: names the signal in log lines. */
  signal: string;
  maxQueueSize: number;
  maxBatchSize: number;
  delayMs: number;
  timeoutMs: number;
  /** The first pause after `FAILURES_BEFORE_PAUSE` failures in a row, and the longest (default 5 s and 60 s). */
  pauseMs?: { first: number; longest: number };
}

export interface ExportCounters {
  sent: number;
  failed: number;
  dropped: number;
  queued: number;
  /** While the receiver is taken to be down: when the queue tries it again (epoch ms); else null. */
  paused_until: number | null;
}

/** Failed exports in a row after which the receiver is taken to be down. */
export const FAILURES_BEFORE_PAUSE = 3;
const FIRST_PAUSE_MS = 5_000;
const LONGEST_PAUSE_MS = 60_000;

/** Exports one batch; resolves when the receiver took it, rejects when it did not. */
export type ExportBatch<T> = (batch: T[]) => Promise<void>;

const LOUD = 5;
const QUIET_MS = 60_000;

/** Warn about the first few problems, then at most once every `QUIET_MS`. */
export class RateLimitedWarn {
  private count = 0;
  private lastMs = 0;
  private suppressed = 0;

  constructor(private readonly logger: Logger) {}

  warn(fields: Record<string, unknown>, message: string, nowMs = Date.now()): void {
    this.count++;
    if (this.count > LOUD && nowMs - this.lastMs < QUIET_MS) {
      this.suppressed++;
      return;
    }
    this.lastMs = nowMs;
    const extra = this.suppressed > 0 ? { ...fields, suppressed: this.suppressed } : fields;
    this.suppressed = 0;
    this.logger.warn(extra, message);
  }
}

export class ExportQueue<T> {
  private queue: T[] = [];
  private timer: NodeJS.Timeout | undefined;
  private exporting: Promise<void> | undefined;
  private closed = false;
  private readonly warn: RateLimitedWarn;
  readonly counters: ExportCounters = { sent: 0, failed: 0, dropped: 0, queued: 0, paused_until: null };
  private failuresInARow = 0;
  private nextPauseMs: number;
  private pausedUntil = 0;

  constructor(
    private readonly exportBatch: ExportBatch<T>,
    private readonly options: ExportQueueOptions,
    logger: Logger,
  ) {
    this.warn = new RateLimitedWarn(logger);
    this.nextPauseMs = options.pauseMs?.first ?? FIRST_PAUSE_MS;
  }

  /** False while the receiver is taken to be down (or once closed): what is offered now is only dropped. */
  get accepting(): boolean {
    if (this.closed) return false;
    if (this.pausedUntil === 0) return true;
    if (Date.now() < this.pausedUntil) return false;
    this.pausedUntil = 0; // the pause is over: the next export tries the receiver again
    this.counters.paused_until = null;
    return true;
  }

  /** Counts `n` items offered while not `accepting` as dropped (they were never converted). */
  refuse(n: number): void {
    if (n === 0) return;
    if (this.closed) this.drop(n, 'shutting down');
    else this.drop(n, `the receiver is down (tried again at ${new Date(this.pausedUntil).toISOString()})`);
  }

  /** Queues what fits; never blocks, never throws. */
  add(items: readonly T[]): void {
    if (items.length === 0) return;
    if (!this.closed && !this.accepting) return this.refuse(items.length);
    const room = this.closed ? 0 : this.options.maxQueueSize - this.queue.length;
    const taken = items.length <= room ? items : items.slice(0, Math.max(0, room));
    for (const item of taken) this.queue.push(item);
    if (taken.length < items.length) this.drop(items.length - taken.length, 'the export queue is full');
    this.counters.queued = this.queue.length;
    this.schedule();
  }

  /**
   * Sends what is queued, for at most `limitMs` in all (default `timeoutMs`); what is still queued then is
   * dropped, and later `add`s are dropped too.
   */
  async close(limitMs = this.options.timeoutMs): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    let stop = false;
    const flush = (async () => {
      await this.exporting;
      while (this.queue.length > 0 && !stop) await this.exportNext();
    })();
    let limit: NodeJS.Timeout | undefined;
    await Promise.race([flush, new Promise<void>((r) => (limit = setTimeout(r, limitMs)))]);
    clearTimeout(limit);
    stop = true;
    if (this.queue.length > 0) {
      const left = this.queue.length;
      this.queue = [];
      this.counters.queued = 0;
      this.drop(left, 'shutting down before they were sent');
    }
  }

  private schedule(): void {
    if (this.exporting !== undefined || this.closed) return; // the running pump looks again when it is done
    if (this.queue.length >= this.options.maxBatchSize) {
      this.pump(false);
    } else if (this.queue.length > 0 && this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        if (this.exporting === undefined) this.pump(true);
      }, this.options.delayMs);
      this.timer.unref();
    }
  }

  /** Exports full batches (and one partial batch when the delay is up), then schedules what is left. */
  private pump(partialToo: boolean): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.exporting = (async () => {
      let partial = partialToo;
      while (this.queue.length >= this.options.maxBatchSize || (partial && this.queue.length > 0)) {
        partial = false;
        await this.exportNext();
      }
    })().finally(() => {
      this.exporting = undefined;
      this.schedule();
    });
  }

  private async exportNext(): Promise<void> {
    const batch = this.queue.splice(0, this.options.maxBatchSize);
    this.counters.queued = this.queue.length;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${this.options.timeoutMs} ms`)),
        this.options.timeoutMs + 1000,
      );
    });
    try {
      await Promise.race([this.exportBatch(batch), timeout]);
      this.counters.sent += batch.length;
      this.failuresInARow = 0;
      this.nextPauseMs = this.options.pauseMs?.first ?? FIRST_PAUSE_MS;
    } catch (err) {
      this.counters.failed += batch.length;
      this.warn.warn(
        { signal: this.options.signal, items: batch.length, failed: this.counters.failed, err: messageOf(err) },
        `OTLP export of ${this.options.signal} failed; the batch is dropped`,
      );
      if (++this.failuresInARow >= FAILURES_BEFORE_PAUSE) this.pause();
    } finally {
      clearTimeout(timer);
    }
  }

  /** The receiver is taken to be down: nothing is taken until the pause is over, and what waits is dropped. */
  private pause(): void {
    const ms = this.nextPauseMs;
    this.pausedUntil = Date.now() + ms;
    this.counters.paused_until = this.pausedUntil;
    this.nextPauseMs = Math.min(2 * ms, this.options.pauseMs?.longest ?? LONGEST_PAUSE_MS);
    const left = this.queue.length;
    this.queue = [];
    this.counters.queued = 0;
    this.counters.dropped += left;
    this.warn.warn(
      { signal: this.options.signal, failures: this.failuresInARow, pause_ms: ms, dropped: this.counters.dropped },
      `OTLP export of ${this.options.signal}: the receiver failed ${this.failuresInARow} exports in a row; ` +
        `nothing is sent for ${ms / 1000} s, then it is tried again`,
    );
  }

  /** Counts `n` items that could not be queued (they did not convert) as failed. */
  fail(n: number, err: unknown): void {
    this.counters.failed += n;
    this.warn.warn(
      { signal: this.options.signal, items: n, failed: this.counters.failed, err: messageOf(err) },
      `OTLP export of ${this.options.signal}: items could not be converted, dropped`,
    );
  }

  private drop(n: number, why: string): void {
    this.counters.dropped += n;
    this.warn.warn(
      { signal: this.options.signal, items: n, dropped: this.counters.dropped, max: this.options.maxQueueSize },
      `OTLP export of ${this.options.signal}: ${why}, items dropped`,
    );
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
