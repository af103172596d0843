/**
 * `logs_console_output`: log records from workers printed on svc-otel's stderr, which the engine relays to its
 * own console. `format: json` prints one JSON object per line; `default` a human-readable line.
 */
import type { ObservabilityConfig } from './config.js';
import type { LogRecord } from './otlp/records.js';
import { nanosToMs } from './otlp/values.js';

export function formatLog(record: LogRecord, format: ObservabilityConfig['format']): string {
  const time = new Date(nanosToMs(record.timestamp_unix_nano)).toISOString();
  const body = typeof record.body === 'string' ? record.body : JSON.stringify(record.body);
  if (format === 'json') {
    return JSON.stringify({
      time,
      level: record.severity_text.toLowerCase(),
      service: record.service_name,
      msg: body,
      trace_id: record.trace_id,
      span_id: record.span_id,
      attributes: record.attributes,
    });
  }
  const trace = record.trace_id === null ? '' : ` trace=${record.trace_id.slice(0, 8)}`;
  return `${time} ${record.severity_text.padEnd(5)} [${record.service_name}]${trace} ${body}`;
}

export function printLog(record: LogRecord, format: ObservabilityConfig['format']): void {
  process.stderr.write(`${formatLog(record, format)}\n`);
}
