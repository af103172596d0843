/**
 * `info/warn/error/debug(message, data?)` over a pino child logger. `data` is logged under the `data` key, or
 * under `err` when it is an Error (pino's serializer keeps its message and stack, which `data` would lose). With
 * telemetry on, each record also goes to the engine's log store, tied to the invocation's trace.
 */
import type { LogAttributes } from '@opentelemetry/api-logs';
import type { Logger } from 'pino';
import type { Telemetry } from '../telemetry/telemetry.js';
import type { HandlerLogger } from '../types.js';

type Level = 'info' | 'warn' | 'error' | 'debug';

/** Where a record goes besides pino: the telemetry of the client, with the invocation's ids and trace. */
export interface LogForward {
  telemetry: Telemetry;
  traceparent: string | undefined;
  attributes: LogAttributes;
}

export class HandlerLoggerImpl implements HandlerLogger {
  constructor(
    private readonly pino: Logger,
    private readonly forward?: LogForward,
  ) {}

  info(message: string, data?: unknown): void {
    this.write('info', message, data);
  }

  warn(message: string, data?: unknown): void {
    this.write('warn', message, data);
  }

  error(message: string, data?: unknown): void {
    this.write('error', message, data);
  }

  debug(message: string, data?: unknown): void {
    this.write('debug', message, data);
  }

  private write(level: Level, message: string, data: unknown): void {
    if (data === undefined) this.pino[level](message);
    else if (data instanceof Error) this.pino[level]({ err: data }, message);
    else this.pino[level]({ data }, message);
    if (this.forward !== undefined) this.send(this.forward, level, message, data);
  }

  private send(forward: LogForward, level: Level, message: string, data: unknown): void {
    const attributes: LogAttributes = { ...forward.attributes };
    if (data instanceof Error) {
      attributes['exception.message'] = data.message;
      if (data.stack !== undefined) attributes['exception.stacktrace'] = data.stack;
    } else if (data !== undefined) {
      attributes['log.data'] = toAttribute(data);
    }
    forward.telemetry.log(level, message, attributes, forward.traceparent);
  }
}

/** A JSON-safe copy of `data` for a log attribute (OTLP any-value); a string when it cannot be copied. */
function toAttribute(data: unknown): LogAttributes[string] {
  try {
    return JSON.parse(JSON.stringify(data)) as LogAttributes[string];
  } catch {
    return String(data);
  }
}
