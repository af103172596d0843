/**
 * `engine::log::{trace,debug,info,warn,error} {message, trace_id?, span_id?, data?, service_name?}`: stores one
 * log record (severity 1/5/9/13/17) and returns nothing.
 */
import type { LogRecord } from './otlp/records.js';
import type { Json } from './otlp/values.js';
import type { Collector } from './collector.js';
import { inputOf, invalid, str } from './queries/input.js';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const;
const SEVERITY: Record<(typeof LOG_LEVELS)[number], number> = { trace: 1, debug: 5, info: 9, warn: 13, error: 17 };

export function engineLog(collector: Collector, level: (typeof LOG_LEVELS)[number], payload: unknown): void {
  const fn = `engine::log::${level}`;
  const input = inputOf(fn, payload);
  const message = str(fn, input, 'message');
  if (message === undefined) throw invalid(fn, 'message is required');
  const service = str(fn, input, 'service_name') ?? 'unknown_service';
  const now = `${BigInt(Date.now()) * 1_000_000n}`;
  const record: LogRecord = {
    timestamp_unix_nano: now,
    observed_timestamp_unix_nano: now,
    severity_number: SEVERITY[level],
    severity_text: level.toUpperCase(),
    body: message,
    attributes: input.data === undefined ? {} : { 'log.data': JSON.parse(JSON.stringify(input.data)) as Json },
    trace_id: str(fn, input, 'trace_id')?.toLowerCase() ?? null,
    span_id: str(fn, input, 'span_id')?.toLowerCase() ?? null,
    resource: { 'service.name': service },
    service_name: service,
    instrumentation_scope_name: null,
    instrumentation_scope_version: null,
  };
  collector.add(record);
}
