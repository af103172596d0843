/**
 * `startConsole(options)`: the console worker (connected to the engine), its live feed and its web server.
 * Resolves once the web server listens; the engine may come later (the worker reconnects, pages show
 * "not connected" until then).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pino, { type Logger } from 'pino';
import { LiveFeed } from './live-feed.js';
import { CONSOLE_DEFAULTS, type ConsoleOptions } from './options.js';
import { CONSOLE_ROUTES } from './routes.js';
import { createConsoleServer } from './server.js';
import { startConsoleWorker } from './worker.js';

export { CONSOLE_DEFAULTS, LIVE_GROUP, LIVE_STREAM, FLOW_SCOPE, type ConsoleOptions } from './options.js';
export { CONSOLE_ROUTES } from './routes.js';

/** Where `npm run build` puts the front end: console/web/dist. */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../web/dist', import.meta.url));

export interface RunningConsole {
  url: string;
  close(): Promise<void>;
}

export async function startConsole(
  partial: Partial<ConsoleOptions> = {},
  logger: Logger = pino({ level: 'warn' }),
): Promise<RunningConsole> {
  const options: ConsoleOptions = { ...CONSOLE_DEFAULTS, webRoot: DEFAULT_WEB_ROOT, ...partial };
  const worker = startConsoleWorker(options, CONSOLE_ROUTES, logger);
  const live = new LiveFeed(worker.client, logger);
  live.start();
  const { server, close } = createConsoleServer({
    options,
    routes: CONSOLE_ROUTES,
    worker,
    version: version(),
    logger,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  let closing: Promise<void> | undefined;
  return {
    url: `http://${options.host}:${options.port}`,
    close: () =>
      (closing ??= (async () => {
        live.close();
        close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await worker.close();
      })()),
  };
}

function version(): string {
  const pkg: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return pkg !== null && typeof pkg === 'object' && 'version' in pkg ? String(pkg.version) : 'unknown';
}
