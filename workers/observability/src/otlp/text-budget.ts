/**
 * How much text one stored record may hold. svc-otel keeps up to `logs_max_count` records, `memory_max_spans`
 * spans and `metrics_max_count` points in memory, and a producer may put anything on them: a worker that logs whole
 * request bodies, or puts them on its spans (iii-sdk sets no attribute limit), ran svc-otel out of heap (a thousand
 * records of 5 MiB; four thousand spans of 1 MiB, far below the default 10,000), and every trace and log it held
 * went with it. So each record keeps at most a budget of characters (keys and string values, nested ones too):
 * past it a string is cut, saying how much was left out, and the entries of an object or array that no longer fit
 * are left out. A cut log record or span carries the attribute `svc.log.truncated` / `svc.span.truncated`.
 */
import type { LogRecord, MetricPoint, SpanEvent, StoredSpan } from './records.js';
import { attributes, obj, type Json, type Obj } from './values.js';

/** Characters of text one stored log record keeps (64 Ki): a long stack trace fits many times over. */
export const MAX_LOG_RECORD_CHARS = 64 * 1024;
/** Characters of text one stored span keeps: its name, attributes, status message, events and links (16 Ki). */
export const MAX_SPAN_CHARS = 16 * 1024;
/** Events and links one stored span keeps (OpenTelemetry's `eventCountLimit` and `linkCountLimit`). */
export const MAX_SPAN_EVENTS = 128;
/** Characters of text one resource keeps (it is shared by the records of one batch). */
export const MAX_RESOURCE_CHARS = 16 * 1024;
/** Characters of text one metric point keeps: its name, description, unit and attributes. */
export const MAX_METRIC_POINT_CHARS = 4 * 1024;
/** The attribute a cut log record carries. */
export const TRUNCATED_ATTRIBUTE = 'svc.log.truncated';
/** The attribute a cut span carries. */
export const SPAN_TRUNCATED_ATTRIBUTE = 'svc.span.truncated';

/** What is left of a budget of characters; `keep` takes from it. */
export class TextBudget {
  constructor(public left: number) {}

  /** `value` if it fits what is left, else a copy cut to fit (a string stays a string, an object an object). */
  keep<T extends Json>(value: T): T {
    const n = textOf(value, this.left + 1);
    if (n <= this.left) {
      this.left -= n;
      return value;
    }
    return cut(value, this) as T;
  }
}

/** True when `values` together hold more than `budget` characters of text. */
export function overBudget(values: readonly Json[], budget: number): boolean {
  let n = 0;
  for (const value of values) if ((n += textOf(value, budget + 1 - n)) > budget) return true;
  return false;
}

/** `record` itself when it fits the budget, else a copy cut to fit. */
export function withinTextBudget(record: LogRecord, budget = MAX_LOG_RECORD_CHARS): LogRecord {
  if (!overBudget([record.body, record.attributes], budget)) return record;
  const left = new TextBudget(budget);
  const body = left.keep(record.body);
  const attributes = left.keep(record.attributes);
  return { ...record, body, attributes: { ...attributes, [TRUNCATED_ATTRIBUTE]: true } };
}

/**
 * `span` itself when it fits, else a copy cut to fit: its name first, then its attributes, status message,
 * events and links, in that order (events and links past `MAX_SPAN_EVENTS`, or once the budget is spent, are
 * left out; its `errors` are to be read from the events kept).
 */
export function spanWithinBudget(span: StoredSpan, budget = MAX_SPAN_CHARS): StoredSpan {
  const links = span.links ?? [];
  const parts = [span.name, span.attributes, span.status_message ?? '', span.trace_state ?? ''];
  const within =
    span.events.length <= MAX_SPAN_EVENTS &&
    links.length <= MAX_SPAN_EVENTS &&
    !overBudget([...parts, ...span.events.map(eventText), ...links.map((l) => l.attributes)], budget);
  if (within) return span;
  const left = new TextBudget(budget);
  const out: StoredSpan = { ...span, name: left.keep(span.name), attributes: left.keep(span.attributes) };
  if (span.status_message !== undefined) out.status_message = left.keep(span.status_message);
  if (span.trace_state !== undefined) out.trace_state = left.keep(span.trace_state);
  out.events = [];
  for (const e of span.events) {
    if (out.events.length === MAX_SPAN_EVENTS || left.left <= 0) break;
    out.events.push({ ...e, name: left.keep(e.name), attributes: left.keep(e.attributes) });
  }
  if (span.links !== undefined) {
    out.links = [];
    for (const l of span.links) {
      if (out.links.length === MAX_SPAN_EVENTS || left.left <= 0) break;
      out.links.push({ ...l, attributes: left.keep(l.attributes) });
    }
  }
  out.attributes = { ...out.attributes, [SPAN_TRUNCATED_ATTRIBUTE]: true };
  return out;
}

/** `point` itself when it fits, else a copy cut to fit: its name, description, unit, then its attributes. */
export function pointWithinBudget(point: MetricPoint, budget = MAX_METRIC_POINT_CHARS): MetricPoint {
  if (!overBudget([point.name, point.description, point.unit, point.attributes], budget)) return point;
  const left = new TextBudget(budget);
  return {
    ...point,
    name: left.keep(point.name),
    description: left.keep(point.description),
    unit: left.keep(point.unit),
    attributes: left.keep(point.attributes),
  };
}

function eventText(e: SpanEvent): Json {
  return [e.name, e.attributes];
}

/**
 * The resource of a `resourceSpans` / `resourceLogs` / `resourceMetrics` entry as it may be kept: cut to
 * `MAX_RESOURCE_CHARS` when it holds more.
 */
export function resourceOf(entry: Obj): Record<string, Json> {
  const resource = attributes(
    entry.resource === undefined ? [] : obj(entry.resource, 'resource').attributes,
    'resource',
  );
  return new TextBudget(MAX_RESOURCE_CHARS).keep(resource);
}

/** The characters of text in `value` (keys and strings), counted only up to what matters: stops past `limit`. */
function textOf(value: Json, limit: number): number {
  if (typeof value === 'string') return value.length;
  if (value === null || typeof value !== 'object') return 0;
  let n = 0;
  if (Array.isArray(value)) {
    for (const item of value) if ((n += textOf(item, limit - n) + 1) > limit) return n;
    return n;
  }
  for (const key in value) if ((n += key.length + textOf(value[key] as Json, limit - n)) > limit) return n;
  return n;
}

function cut(value: Json, budget: TextBudget): Json {
  if (typeof value === 'string') {
    if (value.length <= budget.left) {
      budget.left -= value.length;
      return value;
    }
    const kept = Math.max(0, budget.left);
    budget.left = 0;
    return detached(`${value.slice(0, kept)}… [${value.length - kept} more characters not kept]`);
  }
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out: Json[] = [];
    for (const item of value) {
      if (budget.left <= 0) break;
      budget.left -= 1;
      out.push(cut(item, budget));
    }
    return out;
  }
  const out: Record<string, Json> = {};
  for (const key in value) {
    if (budget.left <= key.length) break;
    budget.left -= key.length;
    // defined, not assigned: a `__proto__` key stays a key
    Object.defineProperty(out, key, {
      value: cut(value[key] as Json, budget),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * A copy of `text` made of its own characters. V8 makes a slice of a long string (and a string joined from one) a
 * view that keeps the whole original alive: a cut string kept in a store held on to every megabyte it was cut
 * from. UTF-16 holds any string unchanged, lone surrogates included.
 */
function detached(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le');
}
