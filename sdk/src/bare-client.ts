/**
 * A client over a transport the caller provides, without telemetry: it loads neither OpenTelemetry nor the
 * WebSocket client, which is what the engine's in-process clients need (their transport carries no telemetry
 * frames). Workers use `createClient` / `registerWorker` from `@svc/sdk`.
 */
import type { Logger } from 'pino';
import { Client } from './client/client.js';
import type { ClientTransport } from './connection/transport.js';
import type { SvcClient, WorkerOptions } from './types.js';

export function createBareClient(
  transport: ClientTransport,
  options: WorkerOptions & { workerName: string; logger: Logger },
): SvcClient {
  return new Client(transport, options).start();
}
