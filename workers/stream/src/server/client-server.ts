import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import type { StreamAdapter } from '../adapters/types.js';
import type { SubscriptionRequest } from '../messages.js';
import { buildAuthInput, splitUrl, type StreamAuthInput } from './auth-input.js';
import { CLOSE, ClientConnection, type ConnectionHost, type ConnectionLimits } from './connection.js';
import { SubscriptionIndex, type FrameSink } from './subscriptions.js';

/** The outcome of the auth function for one upgrade request. */
export type AuthDecision =
  { allow: true; context: unknown } | { allow: false; status: 401 | 500 | 503; reason: string };

export interface JoinLeaveEvent {
  subscription_id: string;
  stream_name: string;
  group_id: string;
  id: string | null;
  context: unknown;
}

export interface ClientServerHooks {
  /** Undefined when no auth function is configured (everyone is let in, with a null context). */
  authenticate?: (input: StreamAuthInput) => Promise<AuthDecision>;
  authorizeJoin(event: JoinLeaveEvent): Promise<boolean>;
  notifyLeave(event: JoinLeaveEvent): void;
  /** The `sync` read; default: the adapter's list (group) or get (item). */
  snapshot?: (request: SubscriptionRequest) => Promise<unknown>;
}

export interface ClientServerOptions extends ConnectionLimits {
  port: number;
  host: string;
  maxMessageBytes: number;
  pingIntervalMs: number;
  handshakeTimeoutMs: number;
  allowedOrigins: string[] | null;
}

const STATUS_TEXT: Record<number, string> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/**
 * The client WebSocket server (docs/protocol.md §6): `ws://<host>:<port>/`, auth before the upgrade, join/leave with a
 * sync snapshot, and every change from the adapter's feed pushed to the matching subscriptions of this process.
 * `close()` stops listening, closes every client with 1001 and stops the ping timer; it is idempotent.
 */
export class StreamClientServer implements ConnectionHost {
  private readonly http: Server;
  private readonly wss: WebSocketServer;
  private readonly index = new SubscriptionIndex();
  private readonly connections = new Set<ClientConnection>();
  private pingTimer: NodeJS.Timeout | undefined;
  private unsubscribeFeed: (() => void) | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly options: ClientServerOptions,
    private readonly adapter: StreamAdapter,
    private readonly hooks: ClientServerHooks,
    private readonly logger: Logger,
  ) {
    this.http = createServer({
      headersTimeout: options.handshakeTimeoutMs,
      requestTimeout: options.handshakeTimeoutMs,
      // Node checks the two timeouts above only this often (30 s by default), so a slow handshake would live longer.
      connectionsCheckingInterval: Math.min(1000, options.handshakeTimeoutMs),
    });
    this.http.on('request', (_req, res) => {
      res.writeHead(426, { 'content-type': 'text/plain', connection: 'close' }).end('WebSocket upgrade required\n');
    });
    this.http.on('clientError', (_error, socket) => socket.destroy());
    this.wss = new WebSocketServer({ noServer: true, maxPayload: options.maxMessageBytes });
    this.http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      void this.onUpgrade(req, socket, head);
    });
  }

  /** Listens and subscribes to the change feed; resolves with the bound port. */
  async start(): Promise<number> {
    this.unsubscribeFeed = this.adapter.onMessage((message) => this.index.deliver(message));
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(this.options.port, this.options.host, () => {
        this.http.off('error', reject);
        resolve();
      });
    });
    this.pingTimer = setInterval(() => this.connections.forEach((c) => c.heartbeat()), this.options.pingIntervalMs);
    this.pingTimer.unref();
    return (this.http.address() as AddressInfo).port;
  }

  get stats(): { connections: number; subscriptions: number } {
    return { connections: this.connections.size, subscriptions: this.index.size };
  }

  private async onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', (error) => this.logger.debug({ err: error }, 'socket error during the handshake'));
    const { path } = splitUrl(req.url);
    if (path !== '/') return refuse(socket, 404, 'the stream socket is served at / only');
    const origin = req.headers.origin;
    const allowed = this.options.allowedOrigins;
    if (allowed && origin !== undefined && !allowed.includes(origin)) {
      return refuse(socket, 403, 'origin not allowed');
    }
    let context: unknown = null;
    if (this.hooks.authenticate) {
      const decision = await this.hooks.authenticate(buildAuthInput(req)).catch((error: unknown) => {
        this.logger.error({ err: error }, 'auth check failed');
        return { allow: false, status: 500, reason: 'authentication failed' } as const;
      });
      if (!decision.allow) return refuse(socket, decision.status, decision.reason);
      context = decision.context;
    }
    if (socket.destroyed || this.closing) return void socket.destroy();
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, context));
  }

  private accept(ws: WebSocket, context: unknown): void {
    const connection = new ClientConnection(ws, context, this, this.options, this.logger);
    this.connections.add(connection);
  }

  // ConnectionHost

  authorizeJoin(connection: ClientConnection, request: SubscriptionRequest): Promise<boolean> {
    return this.hooks.authorizeJoin(this.event(connection, request));
  }

  notifyLeave(connection: ClientConnection, request: SubscriptionRequest): void {
    this.hooks.notifyLeave(this.event(connection, request));
  }

  snapshot(request: SubscriptionRequest): Promise<unknown> {
    if (this.hooks.snapshot) return this.hooks.snapshot(request);
    if (request.id === null) return this.adapter.list(request.streamName, request.groupId);
    return this.adapter.get(request.streamName, request.groupId, request.id).then((value) => value ?? null);
  }

  subscribe(sink: FrameSink, request: SubscriptionRequest): () => void {
    return this.index.add(sink, request);
  }

  onClosed(connection: ClientConnection): void {
    this.connections.delete(connection);
  }

  private event(connection: ClientConnection, request: SubscriptionRequest): JoinLeaveEvent {
    return {
      subscription_id: request.subscriptionId,
      stream_name: request.streamName,
      group_id: request.groupId,
      id: request.id,
      context: connection.context ?? null,
    };
  }

  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    this.unsubscribeFeed?.();
    if (this.pingTimer) clearInterval(this.pingTimer);
    const closed = new Promise<void>((resolve) => this.http.close(() => resolve()));
    for (const connection of this.connections) connection.drop(CLOSE.goingAway, 'server shutting down');
    this.http.closeAllConnections();
    await closed;
    this.wss.close();
  }
}

/** Answers an upgrade request with a plain HTTP error (no stack traces, no details beyond `reason`). */
function refuse(socket: Duplex, status: number, reason: string): void {
  if (socket.destroyed) return;
  const body = JSON.stringify({ error: reason });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
