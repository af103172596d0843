/**
 * Entry points: `registerWorker(url, options)` connects over WebSocket; `createClient(transport, options)` runs
 * the same client over any transport (the engine hands its modules an in-process one).
 */
import type { ClientTransport } from './connection/transport.js';
import { WsTransport } from './connection/ws-transport.js';
import { Client } from './client/client.js';
import { createLogger } from './logger.js';
import type { SvcClient, WorkerOptions } from './types.js';
import { defaultWorkerName } from './worker-metadata.js';

export const DEFAULT_ENGINE_URL = 'ws://localhost:49134';

/** A client over `transport`, started at once (it connects and registers as soon as the transport opens). */
export function createClient(transport: ClientTransport, options: WorkerOptions = {}): SvcClient {
  const workerName = options.workerName ?? defaultWorkerName();
  const logger = options.logger ?? createLogger(workerName);
  return new Client(transport, { ...options, workerName, logger }).start();
}

/** Connects a worker to the engine at `url` (default: env `SVC_URL`, else `ws://localhost:49134`). */
export function registerWorker(
  url: string = process.env.SVC_URL || DEFAULT_ENGINE_URL, // an empty SVC_URL counts as unset
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
