/**
 * `{"resourceMetrics":[…]}` (OTLP/JSON) → metric points (sums, gauges, histograms). Each decoded point keeps, in
 * `otlp`, what the OTLP export needs to rebuild the SDK's `ResourceMetrics` (resource, scope, start time,
 * temporality, integer or double); the stores and queries read the flat fields only. Exponential histograms and
 * summaries are not decoded (no producer of ours makes them), so they are neither stored nor exported.
 */
import { attributes, list, nanos, nanosToMs, obj, optString, OtlpShapeError, serviceOf } from './values.js';
import type { MetricPoint, MetricSource, Temporality } from './records.js';
import { pointWithinBudget, resourceOf } from './text-budget.js';

export function decodeMetrics(body: unknown): MetricPoint[] {
  const out: MetricPoint[] = [];
  list(obj(body, 'body').resourceMetrics, 'resourceMetrics').forEach((rm, i) => {
    const r = obj(rm, `resourceMetrics[${i}]`);
    const resource = resourceOf(r);
    const service = serviceOf(resource);
    list(r.scopeMetrics, `resourceMetrics[${i}].scopeMetrics`).forEach((sm, j) => {
      const path = `resourceMetrics[${i}].scopeMetrics[${j}].metrics`;
      const s = obj(sm, path);
      const sc = s.scope === undefined ? {} : obj(s.scope, `resourceMetrics[${i}].scopeMetrics[${j}].scope`);
      const scope: MetricSource['scope'] = { name: optString(sc.name, 'scope.name') ?? '' };
      const version = optString(sc.version, 'scope.version');
      if (version !== undefined && version !== '') scope.version = version;
      const from = { resource, scope };
      list(s.metrics, path).forEach((m, k) => {
        for (const point of decodeMetric(m, `${path}[${k}]`, service, from)) out.push(pointWithinBudget(point));
      });
    });
  });
  return out;
}

type From = Pick<MetricSource, 'resource' | 'scope'>;

function decodeMetric(v: unknown, path: string, service: string, from: From): MetricPoint[] {
  const m = obj(v, path);
  const base = {
    name: optString(m.name, `${path}.name`) ?? '',
    description: optString(m.description, `${path}.description`) ?? '',
    unit: optString(m.unit, `${path}.unit`) ?? '',
    service,
  };
  if (m.sum !== undefined) {
    const sum = obj(m.sum, `${path}.sum`);
    const monotonic = sum.isMonotonic === true;
    const temporality = temporalityOf(sum.aggregationTemporality);
    return points(sum.dataPoints, `${path}.sum`, from, temporality).map((p) => ({
      ...base,
      type: 'sum',
      ...p,
      monotonic,
    }));
  }
  if (m.gauge !== undefined) {
    return points(obj(m.gauge, `${path}.gauge`).dataPoints, `${path}.gauge`, from, 0).map((p) => ({
      ...base,
      type: 'gauge',
      ...p,
    }));
  }
  if (m.histogram !== undefined) {
    const h = obj(m.histogram, `${path}.histogram`);
    const temporality = temporalityOf(h.aggregationTemporality);
    return list(h.dataPoints, `${path}.histogram.dataPoints`).map((d, i) => ({
      ...base,
      type: 'histogram' as const,
      ...histogramPoint(d, `${path}.histogram[${i}]`, from, temporality),
    }));
  }
  return [];
}

function temporalityOf(v: unknown): Temporality {
  const n = Number(v ?? 0);
  return n === 1 || n === 2 ? n : 0;
}

type PointFields = Omit<MetricPoint, 'name' | 'type' | 'description' | 'unit' | 'service'>;

function source(p: Record<string, unknown>, path: string, from: From, temporality: Temporality): MetricSource {
  return {
    ...from,
    start_time_unix_nano: nanos(p.startTimeUnixNano, `${path}.startTimeUnixNano`),
    time_unix_nano: nanos(p.timeUnixNano, `${path}.timeUnixNano`),
    temporality,
    int: p.asDouble === undefined && p.asInt !== undefined,
  };
}

function points(v: unknown, path: string, from: From, temporality: Temporality): PointFields[] {
  return list(v, `${path}.dataPoints`).map((d, i) => {
    const p = obj(d, `${path}.dataPoints[${i}]`);
    const otlp = source(p, `${path}.dataPoints[${i}]`, from, temporality);
    return {
      time_ms: nanosToMs(otlp.time_unix_nano),
      attributes: attributes(p.attributes, `${path}.dataPoints[${i}].attributes`),
      value: Number(p.asDouble ?? p.asInt ?? 0),
      otlp,
    };
  });
}

/** Buckets a histogram point may have: far more than any producer uses (OpenTelemetry's default is 16). */
const MAX_BUCKETS = 4096;

function buckets(v: unknown, path: string): number[] {
  const values = list(v, path);
  if (values.length > MAX_BUCKETS) throw new OtlpShapeError(path, `at most ${MAX_BUCKETS} buckets`);
  return values.map(Number);
}

function histogramPoint(d: unknown, path: string, from: From, temporality: Temporality): PointFields {
  const p = obj(d, path);
  const otlp = source(p, path, from, temporality);
  if (p.min !== undefined && p.min !== null) otlp.min = Number(p.min);
  if (p.max !== undefined && p.max !== null) otlp.max = Number(p.max);
  return {
    time_ms: nanosToMs(otlp.time_unix_nano),
    attributes: attributes(p.attributes, `${path}.attributes`),
    value: Number(p.count ?? 0),
    sum: Number(p.sum ?? 0),
    bucket_counts: buckets(p.bucketCounts, `${path}.bucketCounts`),
    explicit_bounds: buckets(p.explicitBounds, `${path}.explicitBounds`),
    otlp,
  };
}
