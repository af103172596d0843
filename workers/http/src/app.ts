/**
 * svc-http wired to an SDK client: registers the `http` trigger type, serves its routes, and calls the bound
 * functions through the engine. Every replica gets every binding from the engine and serves every route.
 */
import type { Logger } from './logger.js';
import type { SvcClient } from '@svc/sdk';
import type { HttpConfig } from './config.js';
import type { Invoker } from './server/dispatch.js';
import { HttpServer } from './server/http-server.js';
import { RouteTable } from './server/route-table.js';
import { HTTP_TRIGGER_DESCRIPTION, HTTP_TRIGGER_TYPE, httpTriggerHandler } from './triggers.js';

export interface HttpApp {
  readonly port: number;
  close(): Promise<void>;
}

export function sdkInvoker(client: SvcClient): Invoker {
  return {
    invoke: (functionId, payload, options) => {
      // `signal` is for an SDK that lets a caller cancel one invocation (the client went away); an SDK without
      // that ignores the key, and the invocation then ends at its deadline. A getter, so it costs nothing unread.
      const request = {
        function_id: functionId,
        payload,
        timeoutMs: options.timeoutMs,
        metadata: options.metadata,
        get signal() {
          return options.signal;
        },
      };
      return client.trigger(request);
    },
  };
}

export async function startHttpApp(client: SvcClient, config: HttpConfig, logger: Logger): Promise<HttpApp> {
  const routes = new RouteTable();
  const server = new HttpServer({
    host: config.host,
    port: config.port,
    defaultTimeoutMs: config.default_timeout,
    concurrencyLimit: config.concurrency_request_limit,
    maxBodyBytes: config.body_limit_bytes,
    cors: config.cors,
    routes,
    invoker: sdkInvoker(client),
    logger,
  });
  const address = await server.start();
  const triggerType = client.registerTriggerType(
    { id: HTTP_TRIGGER_TYPE, description: HTTP_TRIGGER_DESCRIPTION },
    httpTriggerHandler(routes),
  );
  logger.info(
    { host: address.address, port: address.port },
    `svc-http listening on ${address.address}:${address.port}`,
  );
  let closed: Promise<void> | undefined;
  return {
    port: address.port,
    close: () => {
      closed ??= (async () => {
        // Drain first: in-flight requests still need the engine connection to finish.
        await server.close();
        triggerType.unregister();
      })();
      return closed;
    },
  };
}
