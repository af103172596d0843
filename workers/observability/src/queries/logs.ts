/**
 * `engine::logs::{list, clear}`. Filters (optional, AND): `trace_id`, `span_id`, `level` (exact level name) or
 * `min_severity` (number), `service` (pattern), `search` (substring of the body), `start_time`/`end_time` (ms).
 */
import { globMatcher } from '@svc/sdk';
import { levelOf } from '../otlp/decode-logs.js';
import type { LogRecord } from '../otlp/records.js';
import { nanosToMs } from '../otlp/values.js';
import type { LogStore } from '../stores/log-store.js';
import { inputOf, num, page, str } from './input.js';

export function listLogs(store: LogStore, payload: unknown): unknown {
  const fn = 'engine::logs::list';
  const input = inputOf(fn, payload);
  const traceId = str(fn, input, 'trace_id')?.toLowerCase();
  const spanId = str(fn, input, 'span_id')?.toLowerCase();
  const level = str(fn, input, 'level')?.toLowerCase();
  const minSeverity = num(fn, input, 'min_severity');
  const serviceText = str(fn, input, 'service') ?? str(fn, input, 'service_name');
  const service = serviceText === undefined ? undefined : globMatcher(serviceText);
  const search = str(fn, input, 'search')?.toLowerCase();
  const from = num(fn, input, 'start_time');
  const to = num(fn, input, 'end_time');
  const { offset, limit } = page(fn, input);
  const keep = (r: LogRecord): boolean => {
    const ms = nanosToMs(r.timestamp_unix_nano);
    return (
      (traceId === undefined || r.trace_id === traceId) &&
      (spanId === undefined || r.span_id === spanId) &&
      (level === undefined || level === 'all' || levelOf(r) === level) &&
      (minSeverity === undefined || r.severity_number >= minSeverity) &&
      (service === undefined || service(r.service_name)) &&
      (search === undefined || JSON.stringify(r.body).toLowerCase().includes(search)) &&
      (from === undefined || ms >= from) &&
      (to === undefined || ms <= to)
    );
  };
  const matched = [...store.newest()].filter(keep);
  return { logs: matched.slice(offset, offset + limit), total: matched.length };
}

export function clearLogs(store: LogStore): unknown {
  return { cleared: store.clear() };
}
