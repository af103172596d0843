/**
 * The engine's WebSocket listeners: the main one (`port`/`host`) and any extra ones (`listeners:`), each with its
 * own access rules (docs/rbac.md). A listener without rules gets no gate, so its frames go straight to the core.
 */
import type { Logger } from 'pino';
import type { RbacConfig } from '@svc/config';
import type { EngineCore } from './core/engine-core.js';
import { createListenerGate, needsGate, type RbacHost } from './modules/rbac/index.js';
import { WsServer, type WsServerOptions } from './transport/ws-server.js';

export interface ListenerOptions {
  /** For logs and the banner; default `listener-<port>`. */
  name?: string;
  /** 0 picks a free port. */
  port: number;
  /** Default 0.0.0.0. */
  host?: string;
  /** Runs before every call made through this listener (except `engine::*`), instead of the call. */
  middlewareFunctionId?: string;
  rbac?: RbacConfig;
}

export interface ListenerInfo {
  name: string;
  url: string;
  host: string;
  port: number;
  rbac: boolean;
  middleware: boolean;
}

export interface StartedListener {
  info: ListenerInfo;
  server: WsServer;
}

type SocketOptions = Omit<WsServerOptions, 'port' | 'host' | 'gate'>;

/**
 * Access control (docs/adr/0007): the access-control module's only view of the core (calls, function metadata,
 * delivering a checked frame).
 */
export function rbacHost(core: EngineCore, logger: Logger): RbacHost {
  return {
    call: (functionId, data, options = {}) =>
      new Promise((resolve) => core.router.call(functionId, data, options, resolve)),
    functionMetadata: (functionId) => core.functions.get(functionId)?.primary.metadata,
    deliver: (worker, msg, raw) => core.receive(worker, msg, raw),
    logger,
  };
}

export async function startListener(
  core: EngineCore,
  listener: ListenerOptions,
  socket: SocketOptions,
  host: RbacHost,
): Promise<StartedListener> {
  const bindHost = listener.host ?? '0.0.0.0';
  const access = {
    rbac: listener.rbac,
    middlewareFunctionId: listener.middlewareFunctionId,
    listener: listener.name ?? `listener-${listener.port}`,
  };
  const gate = needsGate(access) ? createListenerGate(access, host) : undefined;
  const server = new WsServer(core, { ...socket, port: listener.port, host: bindHost, gate });
  const port = await server.start();
  const name = listener.name ?? `listener-${port}`;
  const urlHost = bindHost === '0.0.0.0' || bindHost === '::' ? '127.0.0.1' : bindHost;
  const url = `ws://${urlHost.includes(':') ? `[${urlHost}]` : urlHost}:${port}`;
  const info = {
    name,
    url,
    host: bindHost,
    port,
    rbac: listener.rbac !== undefined,
    middleware: listener.middlewareFunctionId !== undefined,
  };
  return { info, server };
}

/** Loopback addresses: only this machine can reach a listener bound there. */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

/**
 * One warning per listener that any client on the network can reach without access rules: on it, anyone may
 * register functions under any id and call every function.
 */
export function openListenerWarnings(listeners: ListenerInfo[]): string[] {
  return listeners
    .filter((l) => !l.rbac && !isLoopback(l.host))
    .map(
      (l) =>
        `${l.name} (${l.host}:${l.port}) has no rbac and listens beyond loopback: any client that can reach it ` +
        'can register and call every function (set rbac, or host: 127.0.0.1)',
    );
}
