/**
 * The records svc-otel stores, as the OTLP decoders make them (decode-logs.ts, decode-metrics.ts, decode-traces.ts)
 * and the text budget bounds them (text-budget.ts): their shapes only, so both can name them.
 */
import type { Json } from './values.js';

export interface LogRecord {
  timestamp_unix_nano: string;
  observed_timestamp_unix_nano: string;
  severity_number: number;
  severity_text: string;
  body: Json;
  attributes: Record<string, Json>;
  trace_id: string | null;
  span_id: string | null;
  resource: Record<string, Json>;
  service_name: string;
  instrumentation_scope_name: string | null;
  instrumentation_scope_version: string | null;
}

export type MetricType = 'sum' | 'gauge' | 'histogram';

export interface MetricPoint {
  name: string;
  type: MetricType;
  description: string;
  unit: string;
  service: string;
  /** ms since the epoch. */
  time_ms: number;
  attributes: Record<string, Json>;
  /** Sums and gauges: the value; histograms: the count. */
  value: number;
  /** Histograms only. */
  sum?: number;
  bucket_counts?: number[];
  explicit_bounds?: number[];
  /** A monotonic cumulative sum (a counter). */
  monotonic?: boolean;
  /** Where the point came from; absent on points svc-otel derives itself (`svc.http.requests`). */
  otlp?: MetricSource;
}

/** 0 unspecified, 1 delta, 2 cumulative (the OTLP enum). */
export type Temporality = 0 | 1 | 2;

export interface MetricSource {
  /** Shared by every point of the same `resourceMetrics` entry. */
  resource: Record<string, Json>;
  /** Shared by every point of the same `scopeMetrics` entry. */
  scope: { name: string; version?: string };
  start_time_unix_nano: string;
  time_unix_nano: string;
  temporality: Temporality;
  /** `asInt` rather than `asDouble` (sums and gauges). */
  int: boolean;
  /** Histograms, when the producer recorded them. */
  min?: number;
  max?: number;
}

export type SpanStatus = 'unset' | 'ok' | 'error';
export type SpanKind = 'unspecified' | 'internal' | 'server' | 'client' | 'producer' | 'consumer';

export interface SpanEvent {
  name: string;
  time_unix_nano: string;
  attributes: Record<string, Json>;
}

export interface SpanLink {
  trace_id: string;
  span_id: string;
  attributes: Record<string, Json>;
}

export interface StoredSpan {
  trace_id: string;
  span_id: string;
  parent_span_id?: string;
  name: string;
  service: string;
  kind: SpanKind;
  start_time_unix_nano: string;
  end_time_unix_nano: string;
  /** Start, ms since the epoch (for sorting and time filters). */
  start_ms: number;
  duration_ms: number;
  status: SpanStatus;
  status_message?: string;
  attributes: Record<string, Json>;
  /** Log events attached to the span. */
  events: SpanEvent[];
  errors: { type?: string; message: string; stacktrace?: string }[];
  /** Shared by every span of the same `resourceSpans` entry (the OTLP export groups by it). */
  resource: Record<string, Json>;
  scope?: string;
  scope_version?: string;
  trace_state?: string;
  links?: SpanLink[];
}
