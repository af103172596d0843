/**
 * The SDK's default logger: pino, JSON on stderr (stdout stays free for the program), level from `SVC_LOG_LEVEL`.
 * Its records at info and above also go to the log store once a forwarder is set (telemetry/log-forward.ts).
 */
import { pino, type Logger } from 'pino';
import { forwardRecord } from './telemetry/log-forward.js';

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

export function createLogger(name: string, level: string | undefined = process.env.SVC_LOG_LEVEL): Logger {
  const lvl = level !== undefined && LEVELS.has(level.toLowerCase()) ? level.toLowerCase() : 'info';
  return pino(
    {
      name,
      level: lvl,
      hooks: {
        logMethod(args, method, level) {
          forwardRecord(this.bindings(), args, level);
          return method.apply(this, args);
        },
      },
    },
    pino.destination({ fd: 2, sync: true }),
  );
}
