/**
 * Spans as the pages use them, normalised from what `engine::traces::*` returns (docs/observability.md, "Query
 * functions"): nanosecond timestamps as numbers or strings, attributes as an object or as key-value pairs, status as a
 * string or an object.
 */
import { textOf } from '../text.js';

export interface SpanEvent {
  name: string;
  time: number;
  attributes: Record<string, unknown>;
}

export interface Span {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  service: string;
  kind: string;
  start: number;
  end: number;
  duration: number;
  status: 'ok' | 'error' | 'unset';
  statusMessage: string | undefined;
  attributes: Record<string, unknown>;
  events: SpanEvent[];
  depth: number;
}

type Raw = Record<string, unknown>;

const isObj = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Nanoseconds (number, bigint-ish string) or milliseconds to milliseconds. */
function toMs(value: unknown): number {
  const n = typeof value === 'string' ? Number(value) : typeof value === 'number' ? value : NaN;
  if (!Number.isFinite(n)) return 0;
  return n > 1e14 ? n / 1e6 : n;
}

export function attributesOf(value: unknown): Record<string, unknown> {
  if (isObj(value)) return value;
  if (!Array.isArray(value)) return {};
  const out: Record<string, unknown> = {};
  for (const pair of value) {
    if (Array.isArray(pair) && typeof pair[0] === 'string') out[pair[0]] = pair[1];
    else if (isObj(pair) && typeof pair.key === 'string')
      out[pair.key] = isObj(pair.value) ? Object.values(pair.value)[0] : pair.value;
  }
  return out;
}

function statusOf(raw: Raw): { status: Span['status']; message: string | undefined } {
  const s = raw.status;
  const text = (isObj(s) ? textOf(s.code ?? s.status_code ?? '') : textOf(s ?? '')).toLowerCase();
  const message = isObj(s) ? (s.message as string | undefined) : (raw.status_description as string | undefined);
  if (text.includes('error') || text === '2') return { status: 'error', message };
  if (text.includes('ok') || text === '1') return { status: 'ok', message };
  return { status: 'unset', message };
}

export function normaliseSpan(raw: Raw): Span {
  const attributes = attributesOf(raw.attributes);
  const resource = attributesOf(raw.resource_attributes ?? raw.resource);
  const start = toMs(raw.start_time_unix_nano ?? raw.start_time ?? raw.start_time_ms);
  const endRaw = toMs(raw.end_time_unix_nano ?? raw.end_time ?? raw.end_time_ms);
  const end = endRaw >= start ? endRaw : start + toMs(raw.duration_ms);
  const { status, message } = statusOf(raw);
  const parent = raw.parent_span_id;
  return {
    traceId: textOf(raw.trace_id ?? ''),
    spanId: textOf(raw.span_id ?? ''),
    parentSpanId: typeof parent === 'string' && parent !== '' && !/^0+$/.test(parent) ? parent : undefined,
    name: textOf(raw.name ?? '(unnamed)'),
    service: textOf(raw.service_name ?? resource['service.name'] ?? attributes['service.name'] ?? 'unknown'),
    kind: textOf(raw.kind ?? ''),
    start,
    end,
    duration: Math.max(0, end - start),
    status,
    statusMessage: message,
    attributes,
    events: (Array.isArray(raw.events) ? raw.events : []).filter(isObj).map((e) => ({
      name: textOf(e.name ?? ''),
      time: toMs(e.timestamp_unix_nano ?? e.time_unix_nano ?? e.timestamp),
      attributes: attributesOf(e.attributes),
    })),
    depth: 0,
  };
}

/** Spans from a list answer (`{spans}`), a tree answer (`{roots}` of nodes with `children`), or a bare array. */
export function spansFrom(answer: unknown): Span[] {
  const out: Raw[] = [];
  const walk = (node: unknown): void => {
    if (!isObj(node)) return;
    // A trace group ({trace_id, spans: [...]}) holds spans; a tree node is a span with its children.
    if (node.span_id === undefined && Array.isArray(node.spans)) return node.spans.forEach(walk);
    out.push(isObj(node.span) ? node.span : node);
    if (Array.isArray(node.children)) node.children.forEach(walk);
  };
  const list = Array.isArray(answer)
    ? answer
    : isObj(answer)
      ? ((answer.roots ?? answer.tree ?? answer.spans ?? answer.traces ?? []) as unknown[])
      : [];
  (Array.isArray(list) ? list : [list]).forEach(walk);
  return orderByTree(out.map(normaliseSpan));
}

/**
 * Parents before children, siblings by start time; sets each span's depth. Spans whose parents form a loop (only a
 * broken exporter sends them) are reachable from no root: each loop starts at its earliest span, so every span is
 * shown once.
 */
export function orderByTree(spans: Span[]): Span[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const children = new Map<string | undefined, Span[]>();
  for (const s of spans) {
    const parent = s.parentSpanId !== undefined && byId.has(s.parentSpanId) ? s.parentSpanId : undefined;
    const siblings = children.get(parent);
    if (siblings === undefined) children.set(parent, [s]);
    else siblings.push(s);
  }
  for (const siblings of children.values()) siblings.sort((a, b) => a.start - b.start);
  const ordered: Span[] = [];
  const placed = new Set<Span>();
  const visit = (start: Span, startDepth: number): void => {
    const stack: [Span, number][] = [[start, startDepth]];
    for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
      const [s, depth] = top;
      if (placed.has(s)) continue;
      placed.add(s);
      ordered.push({ ...s, depth });
      const below = children.get(s.spanId) ?? [];
      for (let i = below.length - 1; i >= 0; i--) stack.push([below[i] as Span, depth + 1]);
    }
  };
  for (const root of children.get(undefined) ?? []) visit(root, 0);
  if (placed.size < spans.length) {
    for (const s of [...spans].sort((a, b) => a.start - b.start)) visit(s, 0);
  }
  return ordered;
}

export interface TraceSummary {
  traceId: string;
  root: Span;
  spans: number;
  services: string[];
  start: number;
  duration: number;
  errors: number;
}

export function summariseTraces(spans: Span[]): TraceSummary[] {
  const byTrace = new Map<string, Span[]>();
  for (const s of spans) byTrace.set(s.traceId, [...(byTrace.get(s.traceId) ?? []), s]);
  return [...byTrace.entries()]
    .map(([traceId, list]) => {
      const root = list.find((s) => s.parentSpanId === undefined) ?? list[0]!;
      const start = Math.min(...list.map((s) => s.start));
      const end = Math.max(...list.map((s) => s.end));
      return {
        traceId,
        root,
        spans: list.length,
        services: [...new Set(list.map((s) => s.service))],
        start,
        duration: end - start,
        errors: list.filter((s) => s.status === 'error').length,
      };
    })
    .sort((a, b) => b.start - a.start);
}

export const fmtMs = (ms: number): string =>
  ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : ms >= 1 ? `${ms.toFixed(1)} ms` : `${(ms * 1000).toFixed(0)} µs`;
