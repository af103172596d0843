/**
 * `{"resourceLogs":[…]}` (OTLP/JSON) → log records, in the shape the `log` trigger delivers (docs/observability.md,
 * "Logs").
 */
import { anyValue, attributes, hexId, list, nanos, obj, optString, serviceOf, type Json } from './values.js';
import type { LogRecord } from './records.js';
import { resourceOf } from './text-budget.js';

export function decodeLogs(body: unknown): LogRecord[] {
  const out: LogRecord[] = [];
  list(obj(body, 'body').resourceLogs, 'resourceLogs').forEach((rl, i) => {
    const r = obj(rl, `resourceLogs[${i}]`);
    const resource = resourceOf(r);
    list(r.scopeLogs, `resourceLogs[${i}].scopeLogs`).forEach((sl, j) => {
      const s = obj(sl, `resourceLogs[${i}].scopeLogs[${j}]`);
      const scope = s.scope === undefined ? {} : obj(s.scope, 'scope');
      list(s.logRecords, `resourceLogs[${i}].scopeLogs[${j}].logRecords`).forEach((lr, k) => {
        const path = `resourceLogs[${i}].scopeLogs[${j}].logRecords[${k}]`;
        out.push(decodeRecord(lr, path, resource, scope));
      });
    });
  });
  return out;
}

function decodeRecord(
  v: unknown,
  path: string,
  resource: Record<string, Json>,
  scope: Record<string, unknown>,
): LogRecord {
  const l = obj(v, path);
  const time = nanos(l.timeUnixNano, `${path}.timeUnixNano`);
  const observed = nanos(l.observedTimeUnixNano, `${path}.observedTimeUnixNano`);
  const severity = Number(l.severityNumber ?? 0);
  return {
    timestamp_unix_nano: time === '0' ? observed : time,
    observed_timestamp_unix_nano: observed,
    severity_number: Number.isFinite(severity) ? severity : 0,
    severity_text: optString(l.severityText, `${path}.severityText`) ?? severityText(severity),
    body: anyValue(l.body, `${path}.body`),
    attributes: attributes(l.attributes, `${path}.attributes`),
    trace_id: hexId(l.traceId, 16, `${path}.traceId`) ?? null,
    span_id: hexId(l.spanId, 8, `${path}.spanId`) ?? null,
    resource,
    service_name: serviceOf(resource),
    instrumentation_scope_name: optString(scope.name, `${path}.scope.name`) ?? null,
    instrumentation_scope_version: optString(scope.version, `${path}.scope.version`) ?? null,
  };
}

/** OTel severity number → level name (1-4 TRACE, 5-8 DEBUG, 9-12 INFO, 13-16 WARN, 17-20 ERROR, 21-24 FATAL). */
export function severityText(n: number): string {
  if (n >= 21) return 'FATAL';
  if (n >= 17) return 'ERROR';
  if (n >= 13) return 'WARN';
  if (n >= 9) return 'INFO';
  if (n >= 5) return 'DEBUG';
  return n >= 1 ? 'TRACE' : 'UNSPECIFIED';
}

/** The level name (`info`, ...) of a record, from its number (its text may be anything). */
export function levelOf(record: LogRecord): string {
  const t = severityText(record.severity_number).toLowerCase();
  return t === 'unspecified' ? record.severity_text.toLowerCase() : t;
}
