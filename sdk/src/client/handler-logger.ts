/**
 * `info/warn/error/debug(message, data?)` over a pino child logger. `data` is logged under the `data` key, or
 * under `err` when it is an Error (pino's serializer keeps its message and stack, which `data` would lose).
 */
import type { Logger } from 'pino';
import type { HandlerLogger } from '../types.js';

type Level = 'info' | 'warn' | 'error' | 'debug';

export class HandlerLoggerImpl implements HandlerLogger {
  constructor(private readonly pino: Logger) {}

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
  }
}
