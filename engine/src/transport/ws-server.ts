/**
 * The engine's WebSocket endpoint (the only place that imports `ws` on the engine side). Routes: `/` for workers,
 * `/otel` for telemetry (accepted and drained). Every socket has an `error` listener (an oversized frame closes it
 * with 1009 and never crashes the process); the engine pings every socket and drops one that stays silent.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import { decodeFrame, FEATURES_HEADER } from '@svc/sdk';
import type { EngineCore } from '../core/engine-core.js';
import type { Worker } from '../core/worker.js';
import { FrameErrors, isTelemetryFrame } from './frame-errors.js';
import { Heartbeat, type Beating } from './heartbeat.js';
import { WsConnection } from './ws-connection.js';

export interface WsServerOptions {
  port: number;
  host: string;
  /** Largest inbound frame, bytes; a bigger one closes the socket with 1009. */
  maxPayload: number;
  /** Outbound bytes a socket may have queued before the engine disconnects it. */
  maxBufferedBytes: number;
  heartbeatIntervalMs: number;
  heartbeatTimeoutMs: number;
  /** Time allowed for the upgrade request's headers. */
  handshakeTimeoutMs: number;
  logger: Logger;
}

export class WsServer {
  private readonly http: Server;
  private readonly workers: WebSocketServer;
  private readonly otel: WebSocketServer;
  private readonly sockets = new Set<WebSocket>();
  private readonly heartbeat: Heartbeat;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly core: EngineCore,
    private readonly options: WsServerOptions,
  ) {
    const wsOptions = {
      noServer: true,
      perMessageDeflate: false,
      clientTracking: false,
      maxPayload: options.maxPayload,
    };
    this.workers = new WebSocketServer(wsOptions);
    this.otel = new WebSocketServer(wsOptions);
    this.heartbeat = new Heartbeat(options.heartbeatIntervalMs, options.heartbeatTimeoutMs, (b) => this.dead(b));
    // Check header deadlines every second (Node's default sweep is 30 s), so a slow upgrade is cut on time.
    const sweepMs = Math.max(100, Math.min(1000, Math.floor(options.handshakeTimeoutMs / 2)));
    this.http = createServer({ connectionsCheckingInterval: sweepMs }, (_req, res) => {
      res.writeHead(426, { 'content-type': 'text/plain', upgrade: 'websocket' });
      res.end('This is the svc engine: connect with a WebSocket (an SDK worker), not plain HTTP.\n');
    });
    this.http.headersTimeout = options.handshakeTimeoutMs;
    this.http.requestTimeout = options.handshakeTimeoutMs;
    this.http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head));
    this.http.on('clientError', (err: NodeJS.ErrnoException, socket) => refuseBadRequest(err, socket));
  }

  async start(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(this.options.port, this.options.host, () => {
        this.http.off('error', reject);
        resolve();
      });
    });
    this.http.on('error', (err) => this.options.logger.error({ err }, 'engine server error'));
    this.heartbeat.start();
    return (this.http.address() as AddressInfo).port;
  }

  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    this.heartbeat.close();
    const closed = new Promise<void>((resolve) => this.http.close(() => resolve()));
    for (const ws of this.sockets) ws.terminate();
    this.http.closeAllConnections();
    await closed;
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', (err) => this.options.logger.debug({ err }, 'socket error during upgrade'));
    const path = pathOf(req.url);
    if (this.closing !== undefined) {
      socket.destroy();
    } else if (path === '/') {
      this.workers.handleUpgrade(req, socket, head, (ws) => this.onWorker(ws, req, socket));
    } else if (path === '/otel') {
      this.otel.handleUpgrade(req, socket, head, (ws) => this.onOtel(ws));
    } else {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    }
  }

  private onWorker(ws: WebSocket, req: IncomingMessage, socket: Duplex): void {
    const { logger, maxBufferedBytes } = this.options;
    const conn = new WsConnection(ws, socket, features(req), req.socket.remoteAddress, maxBufferedBytes, logger);
    this.track(ws, conn);
    const worker = this.core.attach(conn);
    const errors = new FrameErrors(conn, logger);
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      conn.seen = true;
      if (isBinary && isTelemetryFrame(data)) return;
      const text = data.toString();
      const decoded = decodeFrame(text);
      if (!decoded.ok) errors.report(decoded, worker.id);
      else this.deliver(worker, decoded.message, text);
    });
    ws.on('close', () => {
      this.untrack(ws, conn);
      try {
        this.core.detach(worker);
      } catch (err) {
        this.options.logger.error({ err, workerId: worker.id }, 'failed to clean up after a worker');
      }
    });
  }

  private deliver(worker: Worker, message: Parameters<EngineCore['receive']>[1], raw: string): void {
    try {
      this.core.receive(worker, message, raw);
    } catch (err) {
      // A bug must not take the engine down with it: log it and keep serving.
      this.options.logger.error({ err, type: message.type, workerId: worker.id }, 'failed to handle a frame');
    }
  }

  private onOtel(ws: WebSocket): void {
    const beating: Beating = { ws, seen: false, lastSeenMs: 0 };
    this.track(ws, beating);
    ws.on('message', () => {
      beating.seen = true; // telemetry is accepted and dropped
    });
    ws.on('close', () => this.untrack(ws, beating));
  }

  private track(ws: WebSocket, beating: Beating): void {
    this.sockets.add(ws);
    this.heartbeat.add(beating);
    ws.on('error', (err) => this.options.logger.warn({ err: err.message }, 'worker socket error; closing it'));
    ws.on('pong', () => (beating.seen = true));
    ws.on('ping', () => (beating.seen = true));
  }

  private untrack(ws: WebSocket, beating: Beating): void {
    this.sockets.delete(ws);
    this.heartbeat.delete(beating);
  }

  private dead(beating: Beating): void {
    this.options.logger.warn('peer silent past the heartbeat timeout (half-open?): terminating its socket');
    beating.ws.terminate();
  }
}

/** A malformed, oversized or too-slow upgrade request gets a status line when the socket can still take one. */
function refuseBadRequest(err: NodeJS.ErrnoException, socket: Duplex): void {
  const status =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? '431 Request Header Fields Too Large'
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? '408 Request Timeout'
        : '400 Bad Request';
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  setTimeout(() => socket.destroy(), 1000).unref(); // a peer that never reads must not keep it open
}

function pathOf(url: string | undefined): string {
  if (url === undefined) return '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  return path === '' ? '/' : path;
}

function features(req: IncomingMessage): ReadonlySet<string> {
  const raw = req.headers[FEATURES_HEADER];
  const text = Array.isArray(raw) ? raw.join(',') : (raw ?? '');
  return new Set(
    text
      .split(',')
      .map((f) => f.trim())
      .filter(Boolean),
  );
}
