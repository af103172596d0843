/**
 * What happens to each telemetry batch svc-otel receives (`otel::ingest {prefix, body}`): decode (a malformed
 * batch is logged and dropped; an engine span batch that nothing needs decoded at once is only checked and kept
 * packed), keep in memory when the exporter includes `memory`, queue for the OTLP exporters when it includes
 * `otlp` (the records and points that passed the level and sampling filters, with their producer's resource), fire
 * `log` triggers, and print SDK log records when `logs_console_output` is on. Retention is swept every second.
 */
import type { Logger } from 'pino';
import type { ObservabilityConfig } from './config.js';
import { ENGINE_SPANS_PREFIX, SDK_SCOPE, type IngestPrefix } from '@svc/sdk';
import { printLog } from './console-output.js';
import { HttpRequestCounter } from './http-requests.js';
import type { LogTriggers } from './log-trigger.js';
import type { TraceTriggers } from './trace-trigger.js';
import { decodeLogs } from './otlp/decode-logs.js';
import type { LogRecord } from './otlp/records.js';
import { withinTextBudget } from './otlp/text-budget.js';
import { decodeMetrics } from './otlp/decode-metrics.js';
import { EngineSpanDecoder } from './otlp/decode-engine-spans.js';
import { decodeTraces } from './otlp/decode-traces.js';
import type { StoredSpan } from './otlp/records.js';
import { OtlpExport } from './export/otlp-export.js';
import { LogStore } from './stores/log-store.js';
import { MetricStore } from './stores/metric-store.js';
import { SpanStore } from './stores/span-store.js';

const SEVERITY_FLOOR: Record<ObservabilityConfig['level'], number> = {
  trace: 1,
  debug: 5,
  info: 9,
  warn: 13,
  error: 17,
};
const LOUD_DROPS = 5;

export class Collector {
  readonly spans: SpanStore;
  readonly logs: LogStore;
  readonly metrics: MetricStore;
  private readonly export: OtlpExport | undefined;
  private readonly httpRequests = new HttpRequestCounter();
  private readonly engineSpans = new EngineSpanDecoder();
  private sweeper: NodeJS.Timeout | undefined;
  logTriggers: LogTriggers | undefined;
  traceTriggers: TraceTriggers | undefined;
  dropped = 0;

  constructor(
    private readonly config: ObservabilityConfig,
    private readonly logger: Logger,
  ) {
    this.spans = new SpanStore(config.memory_max_spans);
    this.logs = new LogStore(config.logs_max_count, config.logs_retention_seconds);
    this.metrics = new MetricStore(config.metrics_max_count, config.metrics_retention_seconds);
    const otlp = new OtlpExport(config, logger);
    this.export = otlp.active ? otlp : undefined;
  }

  start(): void {
    this.sweeper = setInterval(() => this.sweep(Date.now()), 1000);
    this.sweeper.unref();
  }

  /** Stops the sweeper and sends what the OTLP queues hold (for a few seconds at most, see `OtlpExport.close`). */
  async close(): Promise<void> {
    if (this.sweeper !== undefined) clearInterval(this.sweeper);
    await this.export?.close();
  }

  sweep(nowMs: number): void {
    this.logs.sweep(nowMs);
    this.metrics.sweep(nowMs);
  }

  /** One batch; never throws (a bad batch is logged and dropped). */
  ingest(prefix: IngestPrefix, text: string): void {
    try {
      if (prefix === ENGINE_SPANS_PREFIX) this.engineTraces(text);
      else if (prefix === 'OTLP') this.traces(decodeTraces(JSON.parse(text)));
      else if (prefix === 'LOGS') this.logRecords(JSON.parse(text));
      else this.metricPoints(JSON.parse(text));
    } catch (err) {
      this.drop(prefix, err, text.length);
    }
  }

  status(): unknown {
    return {
      spans: { count: this.spans.size, max: this.spans.capacity, traces: this.spans.traceCount },
      logs: { count: this.logs.size, max: this.logs.capacity },
      metrics: { points: this.metrics.size, max: this.metrics.capacity },
      dropped_batches: this.dropped,
      otlp: this.export === undefined ? null : this.export.status(),
    };
  }

  /**
   * An engine span batch. Its spans are decoded at once only for OTLP export and `trace` triggers; otherwise the
   * batch is checked and kept packed, decoded when a query reads it (a span object per span, kept until evicted,
   * was most of svc-otel's garbage collection). Engine spans never carry the `http.*` attributes the request
   * counter reads (`HttpRequestCounter.count`), so it is not given them.
   */
  private engineTraces(text: string): void {
    if (this.export?.exportsSpans === true || this.traceTriggers?.active === true) {
      this.traces(this.engineSpans.decode(text), false);
    } else {
      const batch = this.engineSpans.pack(text);
      if (this.config.exporter !== 'otlp') this.spans.addPacked(batch);
      this.export?.spansNotSent(batch.count); // the receiver is taken to be down, if spans are exported at all
    }
  }

  private traces(spans: StoredSpan[], httpRequests = true): void {
    if (this.config.exporter !== 'otlp') for (const s of spans) this.spans.add(s);
    this.traceTriggers?.spans(spans);
    if (httpRequests && this.config.metrics_enabled) {
      for (const s of spans) {
        const point = this.httpRequests.count(s);
        if (point !== undefined) this.metrics.add(point);
      }
    }
    this.export?.spans(spans);
  }

  private logRecords(body: unknown): void {
    if (!this.config.logs_enabled) return;
    const floor = SEVERITY_FLOOR[this.config.level];
    const ratio = this.config.logs_sampling_ratio;
    const records = decodeLogs(body)
      .filter((r) => (r.severity_number === 0 || r.severity_number >= floor) && (ratio >= 1 || Math.random() < ratio))
      .map((r) => withinTextBudget(r));
    for (const r of records) this.keep(r);
    this.export?.logs(records);
  }

  /** A record made here (`engine::log::*`), subject to the same settings as ingested ones. */
  add(made: LogRecord): void {
    if (this.config.logs_enabled && made.severity_number >= SEVERITY_FLOOR[this.config.level]) {
      const record = withinTextBudget(made);
      this.keep(record);
      this.export?.logs([record]);
    }
  }

  private keep(record: LogRecord): void {
    if (this.config.logs_exporter !== 'otlp') this.logs.add(record);
    // records of our SDK were printed by their own process already; others (iii-sdk workers) are printed here
    if (this.config.logs_console_output && record.instrumentation_scope_name !== SDK_SCOPE) {
      printLog(record, this.config.format);
    }
    this.logTriggers?.fire(record);
  }

  private metricPoints(body: unknown): void {
    if (!this.config.metrics_enabled) return;
    const points = decodeMetrics(body);
    for (const p of points) this.metrics.add(p);
    this.export?.metrics(points);
  }

  private drop(prefix: string, err: unknown, bytes: number): void {
    this.dropped++;
    const level = this.dropped <= LOUD_DROPS ? 'warn' : 'debug';
    const why = err instanceof Error ? err.message : String(err);
    this.logger[level]({ prefix, bytes, dropped: this.dropped }, `telemetry batch dropped: ${why}`);
  }
}
