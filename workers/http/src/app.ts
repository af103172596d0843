/**
 * svc-http wired to an SDK client: registers the `http` trigger type, serves its routes, and calls the bound
 * functions through the engine. Every replica gets every binding from the engine and serves every route.
 */
import type { Logger } from './logger.js';
import { DEFAULT_ENGINE_URL, type SvcClient } from '@svc/sdk';
import type { HttpConfig } from './config.js';
import type { Invoker } from './server/dispatch.js';
import { HttpServer } from './server/http-server.js';
import { requestTracer } from './server/request-span.js';
import { RouteTable } from './server/route-table.js';
import { sdkChannelPort } from './server/sdk-channels.js';
import { HTTP_TRIGGER_DESCRIPTION, HTTP_TRIGGER_TYPE, httpTriggerHandler } from './triggers.js';

export interface HttpApp {
  readonly port: number;
  close(): Promise<void>;
}

export function sdkInvoker(client: SvcClient): Invoker {
  return {
    // A call no longer wanted (the client went away, the deadline passed) is cancelled by its invocation id:
    // no AbortSignal per request.
    invoke: (functionId, payload, options) =>
      client.trigger({
        function_id: functionId,
        payload,
        timeoutMs: options.timeoutMs,
        metadata: options.metadata,
        traceparent: options.traceparent,
        baggage: options.baggage,
        invocationId: options.invocationId,
      }),
    cancel: (invocationId) => {
      client.cancel(invocationId);
    },
    ...(client.telemetry !== undefined ? { requestSpan: requestTracer(client.telemetry) } : {}),
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
    channels: sdkChannelPort(client, client.engineUrl ?? DEFAULT_ENGINE_URL),
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
