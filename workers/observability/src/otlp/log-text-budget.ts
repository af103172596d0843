/**
 * The text a stored log record may hold: its body and its attributes (keys and string values, nested ones too)
 * come to at most `MAX_LOG_RECORD_CHARS` characters. A worker that logs whole request bodies would otherwise fill
 * svc-otel: a thousand records of 5 MiB (the default `logs_max_count`) ran it out of heap, and every trace and log
 * it held went with it. Past the budget a string is cut (saying how much was left out), and the entries of an
 * object or array that no longer fit are left out; the record then carries the attribute `svc.log.truncated`.
 */
import type { LogRecord } from './decode-logs.js';
import type { Json } from './values.js';

/** Characters of text one stored log record keeps (64 Ki): a long stack trace fits many times over. */
export const MAX_LOG_RECORD_CHARS = 64 * 1024;
/** The attribute a cut record carries. */
export const TRUNCATED_ATTRIBUTE = 'svc.log.truncated';

/** `record` itself when it fits the budget, else a copy cut to fit. */
export function withinTextBudget(record: LogRecord, budget = MAX_LOG_RECORD_CHARS): LogRecord {
  if (textOf(record.body) + textOf(record.attributes) <= budget) return record;
  const state = { left: budget };
  const body = cut(record.body, state);
  const attributes = cut(record.attributes, state) as Record<string, Json>;
  return { ...record, body, attributes: { ...attributes, [TRUNCATED_ATTRIBUTE]: true } };
}

/** The characters of text in `value` (keys and strings), counted only up to what matters: stops past a budget. */
function textOf(value: Json, limit = MAX_LOG_RECORD_CHARS + 1): number {
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

function cut(value: Json, state: { left: number }): Json {
  if (typeof value === 'string') {
    if (value.length <= state.left) {
      state.left -= value.length;
      return value;
    }
    const kept = Math.max(0, state.left);
    state.left = 0;
    return `${value.slice(0, kept)}… [${value.length - kept} more characters not kept]`;
  }
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out: Json[] = [];
    for (const item of value) {
      if (state.left <= 0) break;
      state.left -= 1;
      out.push(cut(item, state));
    }
    return out;
  }
  const out: Record<string, Json> = {};
  for (const key in value) {
    if (state.left <= key.length) break;
    state.left -= key.length;
    // defined, not assigned: a `__proto__` key stays a key
    Object.defineProperty(out, key, {
      value: cut(value[key] as Json, state),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
