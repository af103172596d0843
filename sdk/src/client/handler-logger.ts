/** `info/warn/error/debug(message, data?)` over a pino child logger; `data` is logged under the `data` key. */
import type { Logger } from 'pino';
import type { HandlerLogger } from '../types.js';

export class HandlerLoggerImpl implements HandlerLogger {
  constructor(private readonly pino: Logger) {}

  info(message: string, data?: unknown): void {
    if (data === undefined) this.pino.info(message);
    else this.pino.info({ data }, message);
  }

  warn(message: string, data?: unknown): void {
    if (data === undefined) this.pino.warn(message);
    else this.pino.warn({ data }, message);
  }

  error(message: string, data?: unknown): void {
    if (data === undefined) this.pino.error(message);
    else if (data instanceof Error) this.pino.error({ err: data }, message);
    else this.pino.error({ data }, message);
  }

  debug(message: string, data?: unknown): void {
    if (data === undefined) this.pino.debug(message);
    else this.pino.debug({ data }, message);
  }
}
