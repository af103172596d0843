/**
 * A process's own pino records (not only its handlers') in the log store: `createLogger`'s loggers call
 * `forwardRecord` for every record at info level or above, and `setLogForwarder` (called by the capability worker
 * runtime once its client has telemetry) decides where they go. Records of a handler's logger (bound to an
 * `invocation_id`) are skipped here: the handler logger sends them itself, tied to the invocation's trace. The
 * logger's bindings (`module`, `process`, ...) become attributes of the record.
 */
import type { LogAttributes } from '@opentelemetry/api-logs';
import type { LogLevel } from './telemetry.js';

export type LogForwarder = (level: LogLevel, message: string, attributes: LogAttributes) => void;

let forwarder: LogForwarder | undefined;

export function setLogForwarder(f: LogForwarder | undefined): void {
  forwarder = f;
}

const LEVELS: Record<number, LogLevel> = { 30: 'info', 40: 'warn', 50: 'error', 60: 'error' };

/** pino's `logMethod` hook arguments: `([obj], msg)` or `(msg)`. */
export function forwardRecord(bindings: Record<string, unknown>, args: unknown[], level: number): void {
  const f = forwarder;
  const name = LEVELS[level];
  if (f === undefined || name === undefined || 'invocation_id' in bindings) return;
  const [first, second] = args;
  const message = typeof first === 'string' ? first : typeof second === 'string' ? second : '';
  const attributes: LogAttributes = {};
  const fields = typeof first === 'object' && first !== null ? { ...bindings, ...first } : bindings;
  {
    for (const [k, v] of Object.entries(fields)) {
      if (v instanceof Error) attributes['exception.message'] = v.message;
      else if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) attributes[k] = v as string;
      else attributes[k] = safeJson(v);
    }
  }
  try {
    f(name, message, attributes);
  } catch {
    // telemetry never breaks logging
  }
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}
