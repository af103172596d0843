/**
 * `startEngine(options)`: the core, the WebSocket endpoint and the engine modules, with one lifecycle.
 * `close()` is idempotent: modules (reverse order), in-process clients, sockets, then the listener.
 */
import pino, { type Logger } from 'pino';
import * as sdk from '@svc/sdk';
import type { ClientTransport, SvcClient, WorkerOptions } from '@svc/sdk';
import { DEFAULT_INVOCATION_TIMEOUT_MS, EngineCore } from './core/engine-core.js';
import { createInternals } from './internals.js';
import { createIntrospectionModule, INTROSPECTION_MODULE } from './modules/introspection/index.js';
import type { EngineInternals, EngineModule, ModuleContext } from './modules/module.js';
import { InProcessTransport } from './transport/in-process.js';
import { WsServer } from './transport/ws-server.js';

export const DEFAULT_PORT = 49134;
/** Largest inbound frame: 16 MiB. A bigger frame closes the socket with 1009. */
export const DEFAULT_MAX_PAYLOAD = 16 * 1024 * 1024;
/** Outbound bytes a worker may leave unread before the engine disconnects it: 32 MiB. */
export const DEFAULT_MAX_BUFFERED_BYTES = 32 * 1024 * 1024;
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 10_000;
export const DEFAULT_HEARTBEAT_TIMEOUT_MS = 30_000;
export const DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;

export interface EngineOptions {
  /** WebSocket port (default 49134; 0 picks a free one). */
  port?: number;
  /** Listen address (default 0.0.0.0). */
  host?: string;
  modules?: EngineModule[];
  logger?: Logger;
  /** Engine-side deadline of an invocation without `timeout_ms`; default 30000 ms. */
  invocationTimeoutMs?: number;
  /** How often the engine pings every socket; default 10000 ms (0 disables). */
  heartbeatIntervalMs?: number;
  /** A socket silent for longer than this is dropped; default 30000 ms. */
  heartbeatTimeoutMs?: number;
  /** Largest inbound frame in bytes; default 16 MiB. */
  maxPayload?: number;
  /** Bound on each connection's unsent outbound bytes; default 32 MiB. */
  maxBufferedBytes?: number;
  /** Time allowed for an upgrade request's headers; default 10000 ms. */
  handshakeTimeoutMs?: number;
  /** Load the `engine::*` functions (introspection module) when `modules` has none; default true. */
  introspection?: boolean;
}

export interface RunningEngine {
  /** `ws://127.0.0.1:<port>` (or the configured host). */
  url: string;
  port: number;
  core: EngineCore;
  internals: EngineInternals;
  close(): Promise<void>;
}

type CreateClient = (transport: ClientTransport, options?: WorkerOptions) => SvcClient;

export async function startEngine(options: EngineOptions = {}): Promise<RunningEngine> {
  const logger = options.logger ?? pino({ name: 'svc-engine' });
  const core = new EngineCore({
    logger,
    invocationTimeoutMs: options.invocationTimeoutMs ?? DEFAULT_INVOCATION_TIMEOUT_MS,
  });
  const host = options.host ?? '0.0.0.0';
  const server = new WsServer(core, {
    port: options.port ?? DEFAULT_PORT,
    host,
    maxPayload: options.maxPayload ?? DEFAULT_MAX_PAYLOAD,
    maxBufferedBytes: options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS,
    heartbeatTimeoutMs: options.heartbeatTimeoutMs ?? DEFAULT_HEARTBEAT_TIMEOUT_MS,
    handshakeTimeoutMs: options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS,
    logger,
  });
  const port = await server.start();
  const url = `ws://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}`;
  const internals = createInternals(core, Date.now());
  const transports = new Set<InProcessTransport>();
  const started: EngineModule[] = [];

  const connect = async (workerName: string): Promise<SvcClient> => {
    const createClient = (sdk as unknown as { createClient?: CreateClient }).createClient;
    if (typeof createClient !== 'function') throw new Error('@svc/sdk does not export createClient');
    const transport = new InProcessTransport(core, workerName, logger, (t) => transports.delete(t));
    transports.add(transport);
    const client = createClient(transport, { workerName, logger: logger.child({ worker: workerName }) });
    await client.ready();
    return client;
  };

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      for (const module of [...started].reverse()) {
        await module.close().catch((err: unknown) => logger.error({ err, module: module.name }, 'module close failed'));
      }
      for (const transport of [...transports]) transport.shut(1001, 'engine stopping');
      await server.close();
      for (const worker of [...core.workers.values()]) core.detach(worker);
    })();
    return closing;
  };

  const modules = [...(options.modules ?? [])];
  if (options.introspection !== false && !modules.some((m) => m.name === INTROSPECTION_MODULE)) {
    modules.unshift(createIntrospectionModule());
  }
  try {
    for (const module of modules) {
      const ctx: ModuleContext = {
        connect,
        logger: logger.child({ module: module.name }),
        engineUrl: url,
        engine: internals,
      };
      await module.start(ctx);
      started.push(module);
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { url, port, core, internals, close };
}
