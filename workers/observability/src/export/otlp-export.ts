/**
 * OTLP/HTTP export with the OpenTelemetry JS exporters (`@opentelemetry/exporter-{trace,metrics,logs}-otlp-proto`,
 * protobuf encoding): decoded spans, log records and metric points are rebuilt as the SDK's `ReadableSpan`s,
 * `ReadableLogRecord`s and `ResourceMetrics` (with the producer's resource attributes and scope, see
 * `to-sdk.ts`) and go to `<endpoint>/v1/traces`, `/v1/metrics` and `/v1/logs` through a bounded queue per signal
 * (`export-queue.ts`): full queue, failure or timeout → the items are counted and dropped, never held back; a
 * receiver that keeps failing is left alone for a pause, and what arrives meanwhile is counted without conversion.
 */
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { Logger } from 'pino';
import type { ObservabilityConfig } from '../config.js';
import type { LogRecord } from '../otlp/records.js';
import type { MetricPoint } from '../otlp/records.js';
import type { StoredSpan } from '../otlp/records.js';
import { ExportQueue, type ExportCounters } from './export-queue.js';
import { interned, toReadableLogRecords, toReadableSpans, toResourceMetrics } from './to-sdk.js';

/** Spans and log records queued per signal; metric batches (one per resource and frame) queued. */
export const SPAN_QUEUE = 2048;
export const SPAN_BATCH = 512;
export const SPAN_DELAY_MS = 1000;
export const LOG_QUEUE = 2048;
export const METRIC_QUEUE = 64;
export const SHUTDOWN_FLUSH_MS = 3000;

type ExportConfig = Pick<
  ObservabilityConfig,
  | 'endpoint'
  | 'headers'
  | 'export_timeout_ms'
  | 'exporter'
  | 'logs_exporter'
  | 'metrics_exporter'
  | 'logs_batch_size'
  | 'logs_flush_interval_ms'
>;

interface Exporter<T> {
  export(items: T, done: (result: ExportResult) => void): void;
  shutdown(): Promise<void>;
}

function exportWith<T>(exporter: Exporter<T>): (items: T) => Promise<void> {
  return (items) =>
    new Promise((resolve, reject) =>
      exporter.export(items, (result) => {
        if (result.code === ExportResultCode.SUCCESS) resolve();
        else reject(result.error ?? new Error('the exporter failed'));
      }),
    );
}

/** Converts and queues; an item that does not convert is counted as failed (the batch was stored already). */
function offer<I, T>(
  queue: ExportQueue<T> | undefined,
  items: readonly I[],
  convert: (items: readonly I[]) => T[],
): void {
  if (queue === undefined || items.length === 0) return;
  // a receiver taken to be down: counted as dropped without the conversion
  if (!queue.accepting) return queue.refuse(items.length);
  let converted: T[];
  try {
    converted = convert(items);
  } catch (err) {
    queue.fail(items.length, err);
    return;
  }
  queue.add(converted);
}

export interface OtlpExportStatus {
  endpoint: string;
  traces: ExportCounters | null;
  metrics: ExportCounters | null;
  logs: ExportCounters | null;
}

export class OtlpExport {
  private readonly base: string;
  private readonly spanQueue: ExportQueue<ReadableSpan> | undefined;
  private readonly logQueue: ExportQueue<ReadableLogRecord> | undefined;
  private readonly metricQueue: ExportQueue<ResourceMetrics> | undefined;
  private readonly exporters: Exporter<never>[] = [];
  private readonly interned = interned();
  private readonly timeoutMs: number;

  constructor(config: ExportConfig, logger: Logger) {
    this.base = config.endpoint.replace(/\/+$/, '');
    const common = { headers: config.headers, timeoutMillis: config.export_timeout_ms };
    const timeoutMs = config.export_timeout_ms;
    this.timeoutMs = timeoutMs;
    if (config.exporter !== 'memory') {
      const exporter = new OTLPTraceExporter({ ...common, url: `${this.base}/v1/traces` });
      this.exporters.push(exporter);
      const send = exportWith(exporter);
      this.spanQueue = new ExportQueue(
        send,
        { signal: 'traces', maxQueueSize: SPAN_QUEUE, maxBatchSize: SPAN_BATCH, delayMs: SPAN_DELAY_MS, timeoutMs },
        logger,
      );
    }
    if (config.logs_exporter !== 'memory') {
      const exporter = new OTLPLogExporter({ ...common, url: `${this.base}/v1/logs` });
      this.exporters.push(exporter);
      const send = exportWith(exporter);
      this.logQueue = new ExportQueue(
        send,
        {
          signal: 'logs',
          maxQueueSize: Math.max(LOG_QUEUE, config.logs_batch_size),
          maxBatchSize: config.logs_batch_size,
          delayMs: config.logs_flush_interval_ms,
          timeoutMs,
        },
        logger,
      );
    }
    if (config.metrics_exporter === 'otlp') {
      const exporter = new OTLPMetricExporter({ ...common, url: `${this.base}/v1/metrics` });
      this.exporters.push(exporter);
      const send = exportWith(exporter);
      this.metricQueue = new ExportQueue(
        (batch) => send(batch[0] as ResourceMetrics),
        { signal: 'metrics', maxQueueSize: METRIC_QUEUE, maxBatchSize: 1, delayMs: 0, timeoutMs },
        logger,
      );
    }
  }

  /** True when at least one signal goes out. */
  get active(): boolean {
    return this.exporters.length > 0;
  }

  /**
   * True when spans go out now (`exporter` includes `otlp` and the receiver is not taken to be down); `spans`
   * only counts what it is given otherwise.
   */
  get exportsSpans(): boolean {
    return this.spanQueue?.accepting === true;
  }

  /** Spans that were not decoded because `exportsSpans` was false: counted as dropped when spans are exported. */
  spansNotSent(n: number): void {
    this.spanQueue?.refuse(n);
  }

  spans(spans: readonly StoredSpan[]): void {
    offer(this.spanQueue, spans, (x) => toReadableSpans(x, this.interned));
  }

  logs(records: readonly LogRecord[]): void {
    offer(this.logQueue, records, (x) => toReadableLogRecords(x, this.interned));
  }

  metrics(points: readonly MetricPoint[]): void {
    offer(this.metricQueue, points, (x) => toResourceMetrics(x, this.interned));
  }

  status(): OtlpExportStatus {
    return {
      endpoint: this.base,
      traces: this.spanQueue?.counters ?? null,
      metrics: this.metricQueue?.counters ?? null,
      logs: this.logQueue?.counters ?? null,
    };
  }

  /**
   * Sends what is queued for at most `SHUTDOWN_FLUSH_MS` (or the export timeout when shorter: the process is
   * given 5 s to close), drops the rest, then shuts the exporters down.
   */
  async close(): Promise<void> {
    const limit = Math.min(SHUTDOWN_FLUSH_MS, this.timeoutMs);
    await Promise.all([this.spanQueue?.close(limit), this.logQueue?.close(limit), this.metricQueue?.close(limit)]);
    await Promise.all(this.exporters.map((e) => e.shutdown().catch(() => undefined)));
  }
}
