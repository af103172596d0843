/**
 * Entry points: `registerWorker(url, options)` connects over WebSocket; `createClient(transport, options)` runs
 * the same client over any transport (the engine hands its modules an in-process one).
 */
import type { ClientTransport } from './connection/transport.js';
import { WsTransport } from './connection/ws-transport.js';
import { Client } from './client/client.js';
import { createLogger } from './logger.js';
import { createWorkerTelemetry } from './telemetry/worker-telemetry.js';
import type { SvcClient, WorkerOptions } from './types.js';
import { defaultWorkerName } from './worker-metadata.js';

import { DEFAULT_ENGINE_URL } from './constants.js';

export { DEFAULT_ENGINE_URL };

/** A client over `transport`, started at once (it connects and registers as soon as the transport opens). */
export function createClient(transport: ClientTransport, options: WorkerOptions = {}): SvcClient {
  const workerName = options.workerName ?? defaultWorkerName();
  const logger = options.logger ?? createLogger(workerName);
  return new Client(transport, { ...options, workerName, logger, createTelemetry: createWorkerTelemetry }).start();
}

/**
 * Connects a worker to the engine at `url` (default: env `SVC_URL`, else `ws://localhost:49134`). Several URLs
 * (an array, or comma-separated: `ws://a:49134,ws://b:49134`) are engines of one cluster: the worker fails over
 * to the next one when its connection drops.
 */
export function registerWorker(
  url: string | readonly string[] = process.env.SVC_URL || DEFAULT_ENGINE_URL, // an empty SVC_URL counts as unset
  options: WorkerOptions = {},
): SvcClient {
  const workerName = options.workerName ?? defaultWorkerName();
  const logger = options.logger ?? createLogger(workerName);
  const transport = new WsTransport(url, {
    headers: options.headers,
    reconnection: options.reconnectionConfig,
    logger,
  });
  return createClient(transport, { ...options, workerName, logger });
}
