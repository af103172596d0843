/**
 * The engine's metrics, made with the OpenTelemetry metrics SDK: `svc.invocations.total|errors|duration` per
 * function, `svc.workers.connected` per runtime, `svc.queue.depth|dead_letters` per topic (asked of the queue
 * worker when collected). One pull reader serves `GET /metrics` (Prometheus text) and, on a timer, the OTLP/JSON
 * (`MTRC`) batches shipped to svc-otel, where retention, alerts and OTLP export happen. The per-call figures are
 * plain numbers kept per function and read at collection: the counters by observable counters, the duration
 * histogram added to the collected data as the SDK's own histogram aggregation would report it (cumulative,
 * explicit buckets, sum, min, max). A call costs a few increments, no attribute hashing.
 *
 * Ownership: owns the meter provider and its export timer; `close()` stops them.
 */
import { ValueType, type Attributes, type HrTime } from '@opentelemetry/api';
import { millisToHrTime } from '@opentelemetry/core';
import type * as OtlpTransformer from '@opentelemetry/otlp-transformer';
import { Resource } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  DataPointType,
  InstrumentType,
  MeterProvider,
  MetricReader,
  type HistogramMetricData,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import type { SvcClient, TelemetryPrefix } from '@svc/sdk';
import type { EngineInternals } from '../module.js';
import { toPrometheus } from './prometheus.js';

const DURATION_BUCKETS_MS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000];
const METER = 'svc-engine';
const DURATION = {
  name: 'svc.invocations.duration',
  description: 'Invocation duration in milliseconds',
  unit: 'ms',
  type: InstrumentType.HISTOGRAM,
  valueType: ValueType.DOUBLE,
  advice: { explicitBucketBoundaries: DURATION_BUCKETS_MS },
};

class PullReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

interface FunctionCounts {
  attributes: Attributes;
  total: number;
  errors: number;
  /** The duration histogram: counts per bucket (`value <= bound`, then the overflow), sum, min, max. */
  buckets: number[];
  sum: number;
  min: number;
  max: number;
  since: HrTime;
}

export interface EngineMetricsOptions {
  resource: Record<string, string>;
  internals: EngineInternals;
  /** The engine's in-process client (asks the queue worker for its counts). */
  client: SvcClient;
  send: (prefix: TelemetryPrefix, body: Uint8Array) => boolean;
  exportIntervalMs: number;
}

interface TopicRow {
  queue?: unknown;
  waiting?: unknown;
  delayed?: unknown;
  dead?: unknown;
  completed?: unknown;
  failed?: unknown;
}

let serializers: Promise<typeof OtlpTransformer> | undefined;

export class EngineMetrics {
  private readonly provider: MeterProvider;
  private readonly pull = new PullReader();
  /** Per function id: its attributes object (a call allocates none) and its counts. */
  private readonly counts = new Map<string, FunctionCounts>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly options: EngineMetricsOptions) {
    this.provider = new MeterProvider({ resource: new Resource(options.resource), readers: [this.pull] });
    const meter = this.provider.getMeter(METER);
    meter
      .createObservableCounter('svc.invocations.total', { description: 'Invocations settled, per function' })
      .addCallback((result) => {
        for (const c of this.counts.values()) result.observe(c.total, c.attributes);
      });
    meter
      .createObservableCounter('svc.invocations.errors', { description: 'Invocations that failed' })
      .addCallback((result) => {
        for (const c of this.counts.values()) if (c.errors > 0) result.observe(c.errors, c.attributes);
      });
    meter
      .createObservableGauge('svc.workers.connected', { description: 'Connected workers, per runtime' })
      .addCallback((result) => {
        for (const [runtime, n] of this.workersByRuntime()) result.observe(n, { runtime });
      });
    const depth = meter.createObservableGauge('svc.queue.depth', { description: 'Jobs waiting or delayed' });
    const dead = meter.createObservableGauge('svc.queue.dead_letters', { description: 'Dead letters per topic' });
    // Totals as svc-queue reports them (some adapters count from svc-queue's start: a restart resets them).
    const completed = meter.createObservableCounter('svc.queue.completed', { description: 'Jobs completed' });
    const failed = meter.createObservableCounter('svc.queue.failed', { description: 'Jobs moved to dead letters' });
    meter.addBatchObservableCallback(
      async (result) => {
        for (const row of await this.topics()) {
          const topic = { topic: String(row.queue) };
          result.observe(depth, Number(row.waiting ?? 0) + Number(row.delayed ?? 0), topic);
          result.observe(dead, Number(row.dead ?? 0), topic);
          // A queue worker that does not report the totals gives no points rather than zeros.
          if (row.completed !== undefined) result.observe(completed, Number(row.completed), topic);
          if (row.failed !== undefined) result.observe(failed, Number(row.failed), topic);
        }
      },
      [depth, dead, completed, failed],
    );
    this.timer = setInterval(() => void this.ship(), options.exportIntervalMs);
    this.timer.unref();
  }

  settled(functionId: string, durationMs: number, failed: boolean): void {
    let counts = this.counts.get(functionId);
    if (counts === undefined) {
      counts = {
        attributes: { function: functionId },
        total: 0,
        errors: 0,
        buckets: new Array<number>(DURATION_BUCKETS_MS.length + 1).fill(0),
        sum: 0,
        min: Infinity,
        max: -Infinity,
        since: millisToHrTime(Date.now()),
      };
      this.counts.set(functionId, counts);
    }
    counts.total++;
    if (failed) counts.errors++;
    if (!(durationMs >= 0)) return; // the SDK's histogram drops negative values and NaN
    let i = 0;
    while (i < DURATION_BUCKETS_MS.length && durationMs > DURATION_BUCKETS_MS[i]!) i++;
    counts.buckets[i]!++;
    counts.sum += durationMs;
    if (durationMs < counts.min) counts.min = durationMs;
    if (durationMs > counts.max) counts.max = durationMs;
  }

  /** One OTLP/JSON batch of every metric to svc-otel. */
  private async ship(): Promise<void> {
    try {
      const resourceMetrics = await this.collect();
      // loaded at the first batch, not at start-up
      serializers ??= import('@opentelemetry/otlp-transformer');
      const body = (await serializers).JsonMetricsSerializer.serializeRequest(resourceMetrics);
      if (body !== undefined) this.options.send('MTRC', body);
    } catch {
      // a failed collection is retried at the next tick
    }
  }

  async prometheus(): Promise<string> {
    return toPrometheus(await this.collect());
  }

  /** The reader's collection with the duration histogram in place (after the counters, in the engine's scope). */
  async collect(): Promise<ResourceMetrics> {
    const { resourceMetrics } = await this.pull.collect();
    const histogram = this.durationData();
    if (histogram === undefined) return resourceMetrics;
    let scope = resourceMetrics.scopeMetrics.find((s) => s.scope.name === METER);
    if (scope === undefined) {
      scope = { scope: { name: METER, version: '', schemaUrl: undefined }, metrics: [] };
      resourceMetrics.scopeMetrics.push(scope);
    }
    const after = scope.metrics.findIndex((m) => m.descriptor.name === 'svc.invocations.errors');
    const at =
      after >= 0 ? after + 1 : scope.metrics.findIndex((m) => m.descriptor.name === 'svc.invocations.total') + 1;
    scope.metrics.splice(at, 0, histogram);
    return resourceMetrics;
  }

  private durationData(): HistogramMetricData | undefined {
    const endTime = millisToHrTime(Date.now());
    const dataPoints: HistogramMetricData['dataPoints'] = [];
    for (const c of this.counts.values()) {
      let count = 0;
      for (const n of c.buckets) count += n;
      if (count === 0) continue;
      dataPoints.push({
        attributes: c.attributes,
        startTime: c.since,
        endTime,
        value: {
          min: c.min,
          max: c.max,
          sum: c.sum,
          buckets: { boundaries: DURATION_BUCKETS_MS, counts: [...c.buckets] },
          count,
        },
      });
    }
    if (dataPoints.length === 0) return undefined;
    return {
      descriptor: DURATION,
      aggregationTemporality: AggregationTemporality.CUMULATIVE,
      dataPointType: DataPointType.HISTOGRAM,
      dataPoints,
    };
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.provider.shutdown().catch(() => undefined);
  }

  private workersByRuntime(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const w of this.options.internals.listWorkers()) {
      const runtime = w.kind === 'in-process' ? 'engine' : (w.runtime ?? 'unknown');
      counts.set(runtime, (counts.get(runtime) ?? 0) + 1);
    }
    return counts;
  }

  private async topics(): Promise<TopicRow[]> {
    if (this.options.internals.getFunction('engine::queue::list_topics') === undefined) return [];
    try {
      const out = await this.options.client.trigger<{ topics?: TopicRow[] }>({
        function_id: 'engine::queue::list_topics',
        payload: {},
        timeoutMs: 1000,
      });
      return Array.isArray(out?.topics) ? out.topics : [];
    } catch {
      return [];
    }
  }
}
