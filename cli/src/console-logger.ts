/**
 * The engine's console log: human-readable (pino-pretty, colours) when stdout is a terminal, one JSON object per
 * line otherwise (files, pipes, log collectors). `SVC_LOG_FORMAT=json|pretty` forces one or the other.
 * With the observability module on, its records also go to the log store (sdk telemetry/log-forward.ts).
 */
import { createRequire } from 'node:module';
import pino, { type Logger, type LoggerOptions } from 'pino';
import type pinoPretty from 'pino-pretty';
import { forwardRecord } from '@svc/sdk/core';

// pino-pretty (and its colour, date and stream helpers) is loaded only when the log is human-readable.
const require = createRequire(import.meta.url);

export function consoleLogger(name: string, level: string, env: NodeJS.ProcessEnv = process.env): Logger {
  const forced = env.SVC_LOG_FORMAT?.toLowerCase();
  const human = forced === 'pretty' || (forced !== 'json' && process.stdout.isTTY === true);
  // every record at info and above also reaches the log store once the observability module sets a forwarder
  const options: LoggerOptions = {
    name,
    level,
    hooks: {
      logMethod(args, method, lvl) {
        forwardRecord(this.bindings(), args, lvl);
        return method.apply(this, args);
      },
    },
  };
  // Written synchronously, so nothing is left to flush at exit: when whoever reads the output has gone (a closed
  // pipe, a log collector that died) a write fails with EPIPE, which pino's destination turns into "stop logging";
  // an exit-time flush would instead retry the failing write forever and svc would never stop.
  if (!human) return pino(options, pino.destination({ fd: 1, sync: true }));
  const pretty = require('pino-pretty') as typeof pinoPretty;
  return pino(options, pretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
}
