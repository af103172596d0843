/**
 * `svc console`: serves the web console (default http://127.0.0.1:3113) for a running engine, until SIGTERM or
 * Ctrl-C. The console is a worker of that engine (`svc-console`); the engine may start later.
 */
import pino from 'pino';
import { startConsole, type ConsoleOptions } from '@svc/console';
import { onStopSignals } from '@svc/sdk/core';
import { EXIT } from '../exit-codes.js';

export async function consoleCommand(options: Partial<ConsoleOptions>): Promise<number | undefined> {
  const logger = pino({ level: 'warn' });
  let running;
  try {
    running = await startConsole(options, logger);
  } catch (err) {
    process.stderr.write(`svc console: cannot listen: ${(err as Error).message}\n`);
    return EXIT.error;
  }
  const o = { engineHost: '127.0.0.1', bridgePort: 49134, enginePort: 3111, ...options };
  process.stdout.write(
    `svc console ready at ${running.url} (engine ws://${o.engineHost}:${o.bridgePort}, REST http://${o.engineHost}:${o.enginePort})\n`,
  );
  // the first signal closes the console; a later one (not the same Ctrl-C delivered again) exits at once
  onStopSignals({
    stop: () => void running.close().finally(() => process.exit(EXIT.ok)),
    force: () => process.exit(EXIT.error),
  });
  return undefined;
}
