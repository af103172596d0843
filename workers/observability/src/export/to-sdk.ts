/**
 * Decoded telemetry → the OpenTelemetry SDK's export types (`ReadableSpan`, `ReadableLogRecord`,
 * `ResourceMetrics`), which the OTLP exporters serialise. Every item keeps the resource attributes and the
 * instrumentation scope of the process that produced it: one `Resource` per distinct resource of a batch (the
 * exporters group by `Resource` identity), one scope per distinct name and version.
 *
 * What the decoded form does not keep, and so is not re-exported: dropped-attribute/event/link counts (sent as 0),
 * resource and scope schema URLs, span flags, a log record's own trace flags (a record tied to a span is sent as
 * sampled), exponential histograms and summaries. An attribute or body value that was an integer-valued double
 * goes out as an integer.
 */
import {
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  ValueType,
  type Attributes,
  type HrTime,
  type SpanContext,
} from '@opentelemetry/api';
import { TraceState, type InstrumentationScope } from '@opentelemetry/core';
import { Resource } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import {
  AggregationTemporality,
  DataPointType,
  InstrumentType,
  type DataPoint,
  type Histogram,
  type MetricData,
  type ResourceMetrics,
  type ScopeMetrics,
} from '@opentelemetry/sdk-metrics';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { LogRecord } from '../otlp/records.js';
import type { MetricPoint, MetricSource } from '../otlp/records.js';
import type { StoredSpan } from '../otlp/records.js';
import type { Json } from '../otlp/values.js';

/** Nanoseconds since the epoch (decimal string) → `[seconds, nanoseconds]`, exactly. */
export function hrTime(nanos: string): HrTime {
  const n = BigInt(nanos);
  return [Number(n / 1_000_000_000n), Number(n % 1_000_000_000n)];
}

const nonNegative = (n: bigint): bigint => (n < 0n ? 0n : n);

const KIND: Record<StoredSpan['kind'], SpanKind | undefined> = {
  unspecified: undefined,
  internal: SpanKind.INTERNAL,
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
};

const STATUS: Record<StoredSpan['status'], SpanStatusCode> = {
  unset: SpanStatusCode.UNSET,
  ok: SpanStatusCode.OK,
  error: SpanStatusCode.ERROR,
};

/** Distinct resources and scopes remembered; past that the memory starts again (a new `Resource` object). */
const REMEMBERED = 1000;

/**
 * One `Resource` per resource-attributes object, and per equal attributes (records made by `engine::log::*` each
 * carry an object of their own), so items of one resource that are exported together share a `Resource` and land
 * in one `resource*` entry. Lives as long as the exporter.
 */
export class Resources {
  private byObject = new WeakMap<Record<string, Json>, Resource>();
  private readonly byText = new Map<string, Resource>();

  of(attributes: Record<string, Json>): Resource {
    let r = this.byObject.get(attributes);
    if (r === undefined) {
      const text = JSON.stringify(attributes);
      r = this.byText.get(text);
      if (r === undefined) {
        if (this.byText.size >= REMEMBERED) {
          this.byText.clear();
          this.byObject = new WeakMap();
        }
        r = new Resource(attributes as Attributes);
        this.byText.set(text, r);
      }
      this.byObject.set(attributes, r);
    }
    return r;
  }
}

/** Scopes by name and version, so items of one scope share an object. */
export class Scopes {
  private readonly byKey = new Map<string, InstrumentationScope>();

  of(name: string | null | undefined, version: string | null | undefined): InstrumentationScope {
    const key = `${name ?? ''}@${version ?? ''}`;
    let s = this.byKey.get(key);
    if (s === undefined) {
      if (this.byKey.size >= REMEMBERED) this.byKey.clear();
      s =
        version === undefined || version === null || version === ''
          ? { name: name ?? '' }
          : { name: name ?? '', version };
      this.byKey.set(key, s);
    }
    return s;
  }
}

export interface Interned {
  resources: Resources;
  scopes: Scopes;
}

export function interned(): Interned {
  return { resources: new Resources(), scopes: new Scopes() };
}

export function toReadableSpans(spans: readonly StoredSpan[], { resources, scopes } = interned()): ReadableSpan[] {
  return spans.map((s) => toReadableSpan(s, resources.of(s.resource), scopes.of(s.scope, s.scope_version)));
}

function toReadableSpan(s: StoredSpan, resource: Resource, scope: InstrumentationScope): ReadableSpan {
  const context: SpanContext = { traceId: s.trace_id, spanId: s.span_id, traceFlags: TraceFlags.SAMPLED };
  if (s.trace_state !== undefined) context.traceState = new TraceState(s.trace_state);
  const startTime = hrTime(s.start_time_unix_nano);
  const endTime = hrTime(s.end_time_unix_nano);
  const span: ReadableSpan = {
    name: s.name,
    // the transformer writes `kind + 1`, and 0 (unspecified) when the kind is absent
    kind: KIND[s.kind] as SpanKind,
    spanContext: () => context,
    startTime,
    endTime,
    duration: hrTime(String(nonNegative(BigInt(s.end_time_unix_nano) - BigInt(s.start_time_unix_nano)))),
    status:
      s.status_message === undefined
        ? { code: STATUS[s.status] }
        : { code: STATUS[s.status], message: s.status_message },
    attributes: s.attributes as Attributes,
    links: (s.links ?? []).map((l) => ({
      context: { traceId: l.trace_id, spanId: l.span_id, traceFlags: TraceFlags.SAMPLED },
      attributes: l.attributes as Attributes,
    })),
    events: s.events.map((e) => ({
      name: e.name,
      time: hrTime(e.time_unix_nano),
      attributes: e.attributes as Attributes,
    })),
    ended: true,
    resource,
    instrumentationLibrary: scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
  return s.parent_span_id === undefined ? span : { ...span, parentSpanId: s.parent_span_id };
}

export function toReadableLogRecords(
  records: readonly LogRecord[],
  { resources, scopes } = interned(),
): ReadableLogRecord[] {
  return records.map((r) => {
    const record: ReadableLogRecord = {
      hrTime: hrTime(r.timestamp_unix_nano),
      hrTimeObserved: hrTime(r.observed_timestamp_unix_nano),
      severityNumber: r.severity_number,
      severityText: r.severity_text,
      body: r.body,
      attributes: r.attributes,
      droppedAttributesCount: 0,
      resource: resources.of(r.resource),
      instrumentationScope: scopes.of(r.instrumentation_scope_name, r.instrumentation_scope_version),
    };
    if (r.trace_id === null || r.span_id === null) return record;
    return { ...record, spanContext: { traceId: r.trace_id, spanId: r.span_id, traceFlags: TraceFlags.SAMPLED } };
  });
}

const TEMPORALITY: Record<MetricSource['temporality'], AggregationTemporality> = {
  0: AggregationTemporality.CUMULATIVE,
  1: AggregationTemporality.DELTA,
  2: AggregationTemporality.CUMULATIVE,
};

type Decoded = MetricPoint & { otlp: MetricSource };

/**
 * Decoded points → one `ResourceMetrics` per resource (the metric exporter takes one at a time), with the points
 * of each metric of each scope together, in their order. Points without an origin (derived here) are left out.
 */
export function toResourceMetrics(points: readonly MetricPoint[], { resources } = interned()): ResourceMetrics[] {
  const byResource = new Map<Record<string, Json>, Map<MetricSource['scope'], Map<string, Decoded[]>>>();
  for (const p of points) {
    if (p.otlp === undefined) continue;
    const { resource, scope } = p.otlp;
    let scopes = byResource.get(resource);
    if (scopes === undefined)
      byResource.set(resource, (scopes = new Map<MetricSource['scope'], Map<string, Decoded[]>>()));
    let metrics = scopes.get(scope);
    if (metrics === undefined) scopes.set(scope, (metrics = new Map<string, Decoded[]>()));
    const key = `${p.name}\u0000${p.type}\u0000${p.unit}\u0000${p.otlp.temporality}\u0000${String(p.monotonic)}`;
    const list = metrics.get(key);
    if (list === undefined) metrics.set(key, [p as Decoded]);
    else list.push(p as Decoded);
  }
  return [...byResource].map(([resource, scopes]) => ({
    resource: resources.of(resource),
    scopeMetrics: [...scopes].map(([scope, metrics]): ScopeMetrics => ({
      scope,
      metrics: [...metrics.values()].map(toMetricData),
    })),
  }));
}

function toMetricData(points: Decoded[]): MetricData {
  const first = points[0] as Decoded;
  const valueType = points.every((p) => p.otlp.int) ? ValueType.INT : ValueType.DOUBLE;
  const base = { name: first.name, description: first.description, unit: first.unit, valueType };
  const aggregationTemporality = TEMPORALITY[first.otlp.temporality];
  const times = (p: Decoded): Pick<DataPoint<unknown>, 'startTime' | 'endTime' | 'attributes'> => ({
    startTime: hrTime(p.otlp.start_time_unix_nano),
    endTime: hrTime(p.otlp.time_unix_nano),
    attributes: p.attributes as Attributes,
  });
  if (first.type === 'histogram') {
    return {
      descriptor: { ...base, type: InstrumentType.HISTOGRAM },
      aggregationTemporality,
      dataPointType: DataPointType.HISTOGRAM,
      dataPoints: points.map((p): DataPoint<Histogram> => {
        const value: Histogram = {
          buckets: { boundaries: p.explicit_bounds ?? [], counts: p.bucket_counts ?? [] },
          sum: p.sum ?? 0,
          count: p.value,
        };
        if (p.otlp.min !== undefined) value.min = p.otlp.min;
        if (p.otlp.max !== undefined) value.max = p.otlp.max;
        return { ...times(p), value };
      }),
    };
  }
  const dataPoints = points.map((p): DataPoint<number> => ({ ...times(p), value: p.value }));
  if (first.type === 'gauge') {
    return {
      descriptor: { ...base, type: InstrumentType.OBSERVABLE_GAUGE },
      aggregationTemporality,
      dataPointType: DataPointType.GAUGE,
      dataPoints,
    };
  }
  const monotonic = first.monotonic === true;
  return {
    descriptor: { ...base, type: monotonic ? InstrumentType.COUNTER : InstrumentType.UP_DOWN_COUNTER },
    aggregationTemporality,
    dataPointType: DataPointType.SUM,
    isMonotonic: monotonic,
    dataPoints,
  };
}
