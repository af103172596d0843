/**
 * The console's own web server (default 127.0.0.1:3113):
 *   /api/config              {engineHost, enginePort, wsPort, consolePort, version, enableFlow}
 *   /api/engine/_console/*   a console route, run through the engine as `engine::console::<route>`
 *   /api/engine/<path>       a reverse proxy to the engine's REST port (svc-http)
 *   /ws/streams              a WebSocket proxy to the stream socket (svc-stream)
 *   anything else            the front end (static files; index.html with the config injected)
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { ConsoleInputError, errorResponse, fail, isRecord, type ConsoleResponse } from './http-shape.js';
import { MAX_INVOKE_TIMEOUT_MS, type ConsoleOptions } from './options.js';
import { proxyHttp, readBody, StreamSocketProxy } from './proxy.js';
import { matchRoute, type Route } from './route.js';
import { StaticFiles } from './static-files.js';
import type { ConsoleWorker } from './worker.js';
import { ConsoleErrorCode } from './error-codes.js';

export interface ConsoleServerDeps {
  options: ConsoleOptions;
  routes: readonly Route[];
  worker: ConsoleWorker;
  version: string;
  logger: Logger;
}

export function createConsoleServer(deps: ConsoleServerDeps): { server: Server; close: () => void } {
  const { options } = deps;
  const publicConfig = {
    basePath: '',
    engineHost: options.engineHost,
    enginePort: options.enginePort,
    wsPort: options.wsPort,
    consolePort: options.port,
    version: deps.version,
    enableFlow: options.enableFlow,
  };
  const files = new StaticFiles(options.webRoot, publicConfig);
  const streams = new StreamSocketProxy(`ws://${options.engineHost}:${options.wsPort}`);
  const server = createServer((req, res) => {
    handle(req, res, deps, files, publicConfig).catch((err: unknown) => {
      deps.logger.error({ err, url: req.url }, 'console request failed');
      if (!res.headersSent) send(res, errorResponse(err));
      else res.end();
    });
  });
  server.on('upgrade', (req, socket, head) => {
    if (pathOf(req) === '/ws/streams') streams.upgrade(req, socket, head);
    else socket.destroy();
  });
  return { server, close: () => streams.close() };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  deps: ConsoleServerDeps,
  files: StaticFiles,
  publicConfig: Record<string, unknown>,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://console');
  if (url.pathname === '/api/config') return send(res, { status_code: 200, headers: {}, body: publicConfig });
  if (url.pathname.startsWith('/api/engine/_console/')) return runRoute(req, res, url, deps);
  if (url.pathname.startsWith('/api/engine/')) {
    const { engineHost, enginePort } = deps.options;
    const target = `http://${engineHost}:${enginePort}/${url.pathname.slice('/api/engine/'.length)}${url.search}`;
    return proxyHttp(req, res, target);
  }
  if (url.pathname.startsWith('/api/')) {
    return send(res, fail(404, { code: ConsoleErrorCode.NotFound, message: `no console endpoint ${url.pathname}` }));
  }
  return files.serve(url.pathname, res);
}

async function runRoute(req: IncomingMessage, res: ServerResponse, url: URL, deps: ConsoleServerDeps): Promise<void> {
  const path = url.pathname.slice('/api/engine/'.length);
  const method = req.method ?? 'GET';
  const match = matchRoute(deps.routes, method, path);
  if (!match) {
    return send(res, fail(404, { code: ConsoleErrorCode.NotFound, message: `no console route ${method} /${path}` }));
  }
  if (!deps.worker.connected) {
    const { engineHost, bridgePort } = deps.options;
    const message = `the console is not connected to the engine at ws://${engineHost}:${bridgePort}; is svc running?`;
    return send(res, fail(503, { code: ConsoleErrorCode.EngineUnreachable, message }));
  }
  const body = await parseJsonBody(req);
  const request = {
    method,
    path: `/${match.route.path}`,
    path_params: match.params,
    query_params: Object.fromEntries(url.searchParams),
    headers: {},
    body,
  };
  const inner = isRecord(body) && typeof body.timeout_ms === 'number' ? body.timeout_ms : 0;
  send(res, await deps.worker.run(match.route, request, Math.min(inner, MAX_INVOKE_TIMEOUT_MS)));
}

async function parseJsonBody(req: IncomingMessage): Promise<unknown> {
  const raw = (await readBody(req)).toString('utf8');
  if (raw.trim() === '') return null;
  try {
    return JSON.parse(raw) as unknown;
  } catch (err) {
    throw new ConsoleInputError(`the request body is not valid JSON: ${(err as Error).message}`);
  }
}

function send(res: ServerResponse, response: ConsoleResponse): void {
  res.writeHead(response.status_code, { ...response.headers, 'content-type': 'application/json' });
  res.end(JSON.stringify(response.body ?? null));
}

function pathOf(req: IncomingMessage): string {
  return new URL(req.url ?? '/', 'http://console').pathname;
}
