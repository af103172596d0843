/**
 * `startEngine(options)`: the core, the WebSocket endpoint and the engine modules, with one lifecycle. The
 * built-in modules (introspection, the `enqueue` action) start first, then the given ones; after them the
 * engine installs the interceptor that refuses HTTP-invoked functions no module claimed.
 * `close()` is idempotent: modules (reverse order), in-process clients, sockets, then the listener.
 */
import pino, { type Logger } from 'pino';
import type { RbacConfig } from '@svc/config';
import type { SvcClient } from '@svc/sdk';
import {
  createBareClient,
  DEFAULT_ENGINE_PORT,
  DEFAULT_HEARTBEAT_INTERVAL_MS,
  DEFAULT_HEARTBEAT_TIMEOUT_MS,
  DEFAULT_INVOCATION_TIMEOUT_MS,
} from '@svc/sdk/core';
import { EngineCore } from './core/engine-core.js';
import { sendJson } from './http-json.js';
import { createInternals, createModuleHooks } from './internals.js';
import { CHANNELS_MODULE, createChannelsModule } from './modules/channels/index.js';
import { CONFIGURATION_MODULE, createConfigurationModule } from './modules/configuration/index.js';
import type { ConfigurationLimits } from './modules/configuration/store.js';
import type { RegistrationLimits } from './core/registrations.js';
import { createEnqueueModule, ENQUEUE_MODULE } from './modules/enqueue/index.js';
import { refuseUnclaimedHttpFunctions } from './modules/http-functions/registration.js';
import {
  createIntrospectionModule,
  INTROSPECTION_MODULE,
  WORKERS_REGISTER_FUNCTION,
} from './modules/introspection/index.js';
import type { EngineInternals, EngineModule, ModuleContext } from './modules/module.js';
import {
  openListenerWarnings,
  rbacHost,
  startListener,
  type ListenerInfo,
  type ListenerOptions,
  type StartedListener,
} from './listeners.js';
import { InProcessTransport } from './transport/in-process.js';
import { PlainEndpoints } from './transport/plain-endpoints.js';
import { SocketRoutes } from './transport/socket-routes.js';

export const DEFAULT_PORT = DEFAULT_ENGINE_PORT;
/** Largest inbound frame: 16 MiB. A bigger frame closes the socket with 1009. */
export const DEFAULT_MAX_PAYLOAD = 16 * 1024 * 1024;
/** Outbound bytes a worker may leave unread before the engine disconnects it: 32 MiB. */
export const DEFAULT_MAX_BUFFERED_BYTES = 32 * 1024 * 1024;
/** `max_connections` by default: ~200 MB of idle connections (about 10 KiB each) per listener. */
export const DEFAULT_MAX_CONNECTIONS = 20_000;
export { DEFAULT_HEARTBEAT_INTERVAL_MS, DEFAULT_HEARTBEAT_TIMEOUT_MS };
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
  /** What one worker may register (`max_registration_bytes`, `max_registrations_per_worker`). */
  registrationLimits?: RegistrationLimits;
  /** Calls one worker may be executing at once (`max_in_flight_per_worker`); default 100,000. */
  maxInFlightPerWorker?: number;
  /** Calls in flight in all (`max_in_flight`); default 1,000,000. */
  maxInFlight?: number;
  /** Calls one connection may be waiting on at once (`max_in_flight_per_caller`); default 100,000. */
  maxInFlightPerCaller?: number;
  /** How often the engine pings every socket; default 10000 ms (0 disables). */
  heartbeatIntervalMs?: number;
  /** A socket silent for longer than this is dropped; default 30000 ms. */
  heartbeatTimeoutMs?: number;
  /** Largest inbound frame in bytes; default 16 MiB. */
  maxPayload?: number;
  /** Bound on each connection's unsent outbound bytes; default 32 MiB. */
  maxBufferedBytes?: number;
  /** WebSocket connections each listener holds at most (`max_connections`); default 20,000. */
  maxConnections?: number;
  /** Time allowed for an upgrade request's headers; default 10000 ms. */
  handshakeTimeoutMs?: number;
  /** Load the `engine::*` functions (introspection module) when `modules` has none; default true. */
  introspection?: boolean;
  /** Load the data channels module (`engine::channels::*`, `/ws/channels/…`) when `modules` has none; default true. */
  channels?: boolean;
  /** Load the `configuration::*` functions and trigger type when `modules` has none; default true. */
  configuration?: boolean;
  /** Where `configuration::*` keeps values (`<dir>/<id>.json`); default memory only. */
  configurationDirectory?: string;
  /** How large configurations may be (default: `DEFAULT_CONFIGURATION_LIMITS`). */
  configurationLimits?: ConfigurationLimits;
  /** The main listener's middleware function (docs/rbac.md). */
  middlewareFunctionId?: string;
  /** The main listener's access rules (docs/rbac.md). */
  rbac?: RbacConfig;
  /** More WebSocket listeners of this engine, each with its own port and access rules. */
  listeners?: ListenerOptions[];
}

export interface RunningEngine {
  /** `ws://127.0.0.1:<port>` (or the configured host). */
  url: string;
  port: number;
  /** Every listener, the main one first. */
  listeners: ListenerInfo[];
  core: EngineCore;
  internals: EngineInternals;
  close(): Promise<void>;
}

export async function startEngine(options: EngineOptions = {}): Promise<RunningEngine> {
  const logger = options.logger ?? pino({ name: 'svc-engine' });
  const core = new EngineCore({
    logger,
    invocationTimeoutMs: options.invocationTimeoutMs ?? DEFAULT_INVOCATION_TIMEOUT_MS,
    namesInProcessCallerTo: [WORKERS_REGISTER_FUNCTION],
    ...(options.registrationLimits !== undefined ? { registrationLimits: options.registrationLimits } : {}),
    ...(options.maxInFlightPerWorker !== undefined ? { maxInFlightPerWorker: options.maxInFlightPerWorker } : {}),
    ...(options.maxInFlight !== undefined ? { maxInFlight: options.maxInFlight } : {}),
    ...(options.maxInFlightPerCaller !== undefined ? { maxInFlightPerCaller: options.maxInFlightPerCaller } : {}),
  });
  const routes = new SocketRoutes();
  const endpoints = new PlainEndpoints();
  const socket = {
    routes,
    endpoints,
    maxPayload: options.maxPayload ?? DEFAULT_MAX_PAYLOAD,
    maxBufferedBytes: options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES,
    maxConnections: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS,
    heartbeatTimeoutMs: options.heartbeatTimeoutMs ?? DEFAULT_HEARTBEAT_TIMEOUT_MS,
    handshakeTimeoutMs: options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS,
    logger,
  };
  const host = rbacHost(core, logger);
  const main: ListenerOptions = {
    name: 'engine',
    port: options.port ?? DEFAULT_PORT,
    host: options.host ?? '0.0.0.0',
    middlewareFunctionId: options.middlewareFunctionId,
    rbac: options.rbac,
  };
  const listeners: StartedListener[] = [];
  try {
    for (const listener of [main, ...(options.listeners ?? [])]) {
      listeners.push(await startListener(core, listener, socket, host));
    }
  } catch (err) {
    await Promise.all(listeners.map((l) => l.server.close()));
    throw err;
  }
  const infos = listeners.map((l) => l.info);
  for (const warning of openListenerWarnings(infos)) logger.warn(warning);
  const { url, port } = infos[0]!;
  const internals = createInternals(core, Date.now(), routes, endpoints);
  internals.setHttpRoute('/health', (_req, res) => sendJson(res, 200, { status: 'ok', version: internals.version }));
  // a bare engine has no capability workers to wait for; runSvc replaces this with the configured workers' state
  internals.setHttpRoute('/ready', (_req, res) => sendJson(res, 200, { status: 'ready', workers: [] }));
  const hooks = createModuleHooks(core);
  const transports = new Set<InProcessTransport>();
  const started: EngineModule[] = [];

  const connect = async (workerName: string): Promise<SvcClient> => {
    const transport = new InProcessTransport(core, workerName, logger, (t) => transports.delete(t));
    transports.add(transport);
    const client = createBareClient(transport, { workerName, logger: logger.child({ worker: workerName }) });
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
      await Promise.all(listeners.map((l) => l.server.close()));
      for (const worker of [...core.workers.values()]) core.detach(worker);
    })();
    return closing;
  };

  const modules = [...(options.modules ?? [])];
  if (!modules.some((m) => m.name === ENQUEUE_MODULE)) modules.unshift(createEnqueueModule());
  if (options.introspection !== false && !modules.some((m) => m.name === INTROSPECTION_MODULE)) {
    modules.unshift(createIntrospectionModule());
  }
  if (options.channels !== false && !modules.some((m) => m.name === CHANNELS_MODULE)) {
    modules.unshift(createChannelsModule());
  }
  if (options.configuration !== false && !modules.some((m) => m.name === CONFIGURATION_MODULE)) {
    modules.splice(
      1,
      0,
      createConfigurationModule({
        directory: options.configurationDirectory,
        limits: options.configurationLimits,
      }),
    );
  }
  try {
    for (const module of modules) {
      const ctx: ModuleContext = {
        connect,
        logger: logger.child({ module: module.name }),
        engineUrl: url,
        hooks,
        engine: internals,
      };
      await module.start(ctx);
      started.push(module);
    }
    // last, so it only sees what no module claimed
    hooks.addRegistrationInterceptor(refuseUnclaimedHttpFunctions);
  } catch (err) {
    await close();
    throw err;
  }
  return { url, port, listeners: infos, core, internals, close };
}
