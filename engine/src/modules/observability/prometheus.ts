/**
 * OpenTelemetry metrics → the Prometheus text exposition format (version 0.0.4) for `GET /metrics`. Names: dots
 * become underscores; monotonic sums are counters ending in `_total`; histograms give `_bucket` (cumulative, with
 * `le`), `_sum` and `_count`.
 */
import { DataPointType, type Histogram, type MetricData, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { Attributes } from '@opentelemetry/api';

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export function promName(name: string): string {
  const base = name.replace(/[^a-zA-Z0-9_:]/g, '_');
  return /^[0-9]/.test(base) ? `_${base}` : base;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function labels(attributes: Attributes, extra?: [string, string]): string {
  const parts = Object.entries(attributes).map(([k, v]) => `${promName(k)}="${escapeLabel(String(v))}"`);
  if (extra !== undefined) parts.push(`${extra[0]}="${escapeLabel(extra[1])}"`);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

function num(v: number): string {
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return Number.isNaN(v) ? 'NaN' : String(v);
}

function metricLines(metric: MetricData): string[] {
  const { descriptor } = metric;
  const help = `# HELP %s ${descriptor.description.replace(/\n/g, ' ')}`;
  if (metric.dataPointType === DataPointType.HISTOGRAM) {
    const name = promName(descriptor.name);
    const out = [help.replace('%s', name), `# TYPE ${name} histogram`];
    for (const p of metric.dataPoints) out.push(...histogramLines(name, p.attributes, p.value));
    return out;
  }
  const counter = metric.dataPointType === DataPointType.SUM && metric.isMonotonic;
  const base = promName(descriptor.name);
  const name = counter && !base.endsWith('_total') ? `${base}_total` : base;
  const out = [help.replace('%s', name), `# TYPE ${name} ${counter ? 'counter' : 'gauge'}`];
  for (const p of metric.dataPoints) out.push(`${name}${labels(p.attributes)} ${num(p.value as number)}`);
  return out;
}

function histogramLines(name: string, attributes: Attributes, h: Histogram): string[] {
  const out: string[] = [];
  let cumulative = 0;
  h.buckets.boundaries.forEach((bound, i) => {
    cumulative += h.buckets.counts[i] ?? 0;
    out.push(`${name}_bucket${labels(attributes, ['le', num(bound)])} ${cumulative}`);
  });
  out.push(`${name}_bucket${labels(attributes, ['le', '+Inf'])} ${h.count}`);
  out.push(`${name}_sum${labels(attributes)} ${num(h.sum ?? 0)}`);
  out.push(`${name}_count${labels(attributes)} ${h.count}`);
  return out;
}

export function toPrometheus(resourceMetrics: ResourceMetrics): string {
  const lines: string[] = [];
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      if (metric.dataPoints.length > 0) lines.push(...metricLines(metric));
    }
  }
  return `${lines.join('\n')}\n`;
}
