/** `{"resourceSpans":[…]}` (OTLP/JSON) → stored spans. Exceptions recorded on a span become its `errors`. */
import {
  attributes,
  hexId,
  list,
  nanos,
  nanosToMs,
  obj,
  optString,
  OtlpShapeError,
  serviceOf,
  type Json,
} from './values.js';
import { textOf } from '@svc/sdk';
import type { SpanEvent, SpanKind, SpanLink, SpanStatus, StoredSpan } from './records.js';
import { resourceOf, spanWithinBudget } from './text-budget.js';

const KINDS: readonly SpanKind[] = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];

const STATUS: Record<number, SpanStatus> = { 0: 'unset', 1: 'ok', 2: 'error' };

export function decodeTraces(body: unknown): StoredSpan[] {
  const spans: StoredSpan[] = [];
  list(obj(body, 'body').resourceSpans, 'resourceSpans').forEach((rs, i) => {
    const r = obj(rs, `resourceSpans[${i}]`);
    const resource = resourceOf(r);
    list(r.scopeSpans, `resourceSpans[${i}].scopeSpans`).forEach((ss, j) => {
      const s = obj(ss, `resourceSpans[${i}].scopeSpans[${j}]`);
      const scope = s.scope === undefined ? {} : obj(s.scope, 'scope');
      const name = optString(scope.name, 'scope.name');
      const version = optString(scope.version, 'scope.version');
      list(s.spans, `resourceSpans[${i}].scopeSpans[${j}].spans`).forEach((sp, k) => {
        const span = decodeSpan(sp, `resourceSpans[${i}].scopeSpans[${j}].spans[${k}]`, resource, name);
        if (version !== undefined && version !== '') span.scope_version = version;
        spans.push(span);
      });
    });
  });
  return spans;
}

function decodeSpan(v: unknown, path: string, resource: Record<string, Json>, scope?: string): StoredSpan {
  const s = obj(v, path);
  const traceId = hexId(s.traceId, 16, `${path}.traceId`);
  const spanId = hexId(s.spanId, 8, `${path}.spanId`);
  if (traceId === undefined || spanId === undefined) throw new OtlpShapeError(`${path}.traceId/spanId`, 'ids');
  const start = nanos(s.startTimeUnixNano, `${path}.startTimeUnixNano`);
  const end = nanos(s.endTimeUnixNano, `${path}.endTimeUnixNano`);
  const status = s.status === undefined ? {} : obj(s.status, `${path}.status`);
  const events = list(s.events, `${path}.events`).map((e, i) => decodeEvent(e, `${path}.events[${i}]`));
  const span: StoredSpan = {
    trace_id: traceId,
    span_id: spanId,
    name: optString(s.name, `${path}.name`) ?? '',
    service: serviceOf(resource),
    kind: KINDS[Number(s.kind ?? 0)] ?? 'unspecified',
    start_time_unix_nano: start,
    end_time_unix_nano: end,
    start_ms: nanosToMs(start),
    duration_ms: Number(BigInt(end) - BigInt(start)) / 1e6,
    status: STATUS[Number(status.code ?? 0)] ?? 'unset',
    attributes: attributes(s.attributes, `${path}.attributes`),
    events,
    errors: [],
    resource,
  };
  const parent = hexId(s.parentSpanId, 8, `${path}.parentSpanId`);
  if (parent !== undefined) span.parent_span_id = parent;
  const message = optString(status.message, `${path}.status.message`);
  if (message !== undefined && message !== '') span.status_message = message;
  if (scope !== undefined) span.scope = scope;
  const traceState = optString(s.traceState, `${path}.traceState`);
  if (traceState !== undefined && traceState !== '') span.trace_state = traceState;
  const links = list(s.links, `${path}.links`).map((l, i) => decodeLink(l, `${path}.links[${i}]`));
  if (links.length > 0) span.links = links;
  const kept = spanWithinBudget(span);
  kept.errors = kept.events.filter((e) => e.name === 'exception').map(exceptionOf);
  return kept;
}

function decodeLink(v: unknown, path: string): SpanLink {
  const l = obj(v, path);
  const traceId = hexId(l.traceId, 16, `${path}.traceId`);
  const spanId = hexId(l.spanId, 8, `${path}.spanId`);
  if (traceId === undefined || spanId === undefined) throw new OtlpShapeError(`${path}.traceId/spanId`, 'ids');
  return { trace_id: traceId, span_id: spanId, attributes: attributes(l.attributes, `${path}.attributes`) };
}

function decodeEvent(v: unknown, path: string): SpanEvent {
  const e = obj(v, path);
  return {
    name: optString(e.name, `${path}.name`) ?? '',
    time_unix_nano: nanos(e.timeUnixNano, `${path}.timeUnixNano`),
    attributes: attributes(e.attributes, `${path}.attributes`),
  };
}

function exceptionOf(e: SpanEvent): StoredSpan['errors'][number] {
  const a = e.attributes;
  const out: StoredSpan['errors'][number] = { message: textOf(a['exception.message'] ?? '') };
  if (typeof a['exception.type'] === 'string') out.type = a['exception.type'];
  if (typeof a['exception.stacktrace'] === 'string') out.stacktrace = a['exception.stacktrace'];
  return out;
}
