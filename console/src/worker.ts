/**
 * The console backend as a worker: connects to the engine like any other worker (name `svc-console`), registers
 * `engine::console::<route>` for every `_console/*` route, and binds each to an `http` trigger so the same routes
 * answer on the engine's REST port. Every handler reaches the engine only through functions.
 */
import pino, { type Logger } from 'pino';
import { registerWorker, type SvcClient } from '@svc/sdk';
import { asConsoleRequest, errorResponse, ok, type ConsoleResponse } from './http-shape.js';
import type { ConsoleOptions } from './options.js';
import { functionIdOf, type ConsoleContext, type Route } from './route.js';

export interface ConsoleWorker {
  client: SvcClient;
  /** True while the socket to the engine is open. */
  readonly connected: boolean;
  /**
   * Runs a route through the engine (`engine::console::<name>`), as svc-http would. `innerTimeoutMs` is the
   * longest call the route itself makes (an invoke's own timeout), so this outer call outlasts it.
   */
  run(route: Route, request: Record<string, unknown>, innerTimeoutMs?: number): Promise<ConsoleResponse>;
  close(): Promise<void>;
}

export function startConsoleWorker(
  options: ConsoleOptions,
  routes: readonly Route[],
  logger: Logger = pino({ level: 'warn' }),
): ConsoleWorker {
  let connected = false;
  const client = registerWorker(`ws://${options.engineHost}:${options.bridgePort}`, {
    workerName: 'svc-console',
    workerDescription: 'The web console (svc console)',
    logger,
    reconnectionConfig: { initialDelayMs: 250, maxDelayMs: 5000, maxRetries: -1 },
    onConnectionStateChange: (state) => {
      connected = state.connected;
    },
  });
  const ctx: ConsoleContext = {
    options,
    call: (functionId, payload, callOptions) =>
      client.trigger({
        function_id: functionId,
        payload,
        timeoutMs: callOptions?.timeoutMs ?? 15000,
        ...(callOptions?.traceparent ? { traceparent: callOptions.traceparent } : {}),
      }),
  };
  for (const route of routes) registerRoute(client, route, ctx);
  return {
    client,
    get connected() {
      return connected;
    },
    run: async (route, request, innerTimeoutMs = 0) => {
      try {
        const response = await client.trigger<ConsoleResponse>({
          function_id: functionIdOf(route),
          payload: request,
          timeoutMs: Math.max(35000, innerTimeoutMs + 5000),
        });
        return response ?? ok(null);
      } catch (err) {
        return errorResponse(err);
      }
    },
    close: () => client.shutdown(),
  };
}

function registerRoute(client: SvcClient, route: Route, ctx: ConsoleContext): void {
  const functionId = functionIdOf(route);
  client.registerFunction(
    functionId,
    async (payload: unknown): Promise<ConsoleResponse> => {
      try {
        return ok(await route.handler(asConsoleRequest(payload), ctx));
      } catch (err) {
        return errorResponse(err);
      }
    },
    { description: `${route.method} /${route.path}: ${route.description}`, metadata: { console: true } },
  );
  client.registerTrigger({
    type: 'http',
    function_id: functionId,
    config: { api_path: route.path, http_method: route.method },
  });
}
