/** The SDK's default logger: pino, JSON on stderr (stdout stays free for the program), level from `SVC_LOG_LEVEL`. */
import { pino, type Logger } from 'pino';

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

export function createLogger(name: string, level: string | undefined = process.env.SVC_LOG_LEVEL): Logger {
  const lvl = level !== undefined && LEVELS.has(level.toLowerCase()) ? level.toLowerCase() : 'info';
  return pino({ name, level: lvl }, pino.destination({ fd: 2, sync: true }));
}
