/**
 * The engine's WebSocket endpoint (the only place that imports `ws` on the engine side). Routes: `/` for workers,
 * `/otel` for telemetry (binary OTLP frames handed to the endpoints' telemetry sink, or drained when none is set),
 * and the prefixes modules add through `routes` (the data channels' `/ws/channels/…`; see socket-routes.ts). Plain
 * HTTP GETs are answered by the endpoints' routes (`/health`, `/ready`, `/metrics`; plain-endpoints.ts), anything
 * else gets 426. Every socket has an `error` listener (an oversized frame closes it
 * with 1009 and never crashes the process); the engine pings every socket and drops one that stays silent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  decodeFrame,
  FEATURE_BATCH,
  FEATURES_HEADER,
  FRAME_SEPARATOR,
  MAX_PAYLOAD_HEADER,
  parseFeatures,
  type Message,
} from '@svc/sdk/core';
import type { EngineCore } from '../core/engine-core.js';
import type { Worker } from '../core/worker.js';
import { brokenResult, FrameErrors, isTelemetryFrame } from './frame-errors.js';
import { Heartbeat, type Beating } from './heartbeat.js';
import { wsPeerSocket } from './peer-socket.js';
import { PlainEndpoints } from './plain-endpoints.js';
import { SocketRoutes, type SocketRoute } from './socket-routes.js';
import type { GateSession, ListenerGate } from './listener-gate.js';
import { upgradeInfo } from './upgrade-info.js';
import { WsConnection } from './ws-connection.js';

/** How often, at most, refusals for `max_connections` are logged. */
const FULL_LOG_EVERY_MS = 10_000;

/** Frames a connection may send while its session is being decided; more closes it (1008). */
const MAX_FRAMES_BEFORE_ADMISSION = 1024;

export interface WsServerOptions {
  port: number;
  host: string;
  /** Largest inbound frame, bytes; a bigger one closes the socket with 1009. */
  maxPayload: number;
  /** Outbound bytes a socket may have queued before the engine disconnects it. */
  maxBufferedBytes: number;
  /** WebSocket connections this listener holds at most; an upgrade past it is answered 503. */
  maxConnections: number;
  heartbeatIntervalMs: number;
  heartbeatTimeoutMs: number;
  /** Time allowed for the upgrade request's headers. */
  handshakeTimeoutMs: number;
  logger: Logger;
  /** Access rules of this listener (RBAC, middleware); absent: frames go straight to the core. */
  gate?: ListenerGate;
  /** Module routes shared by every listener of the engine (data channels); default: a set of its own. */
  routes?: SocketRoutes;
  /** Plain-HTTP routes and the telemetry sink, shared by every listener of the engine; default: its own. */
  endpoints?: PlainEndpoints;
}

export class WsServer {
  /** Plain-HTTP routes and the telemetry sink (shared by every listener when given in the options). */
  readonly endpoints: PlainEndpoints;
  private readonly http: Server;
  private readonly workers: WebSocketServer;
  private readonly otel: WebSocketServer;
  /** Module routes (data channels): served by `moduleSockets`, outside the heartbeat (a paused reader is quiet). */
  readonly routes: SocketRoutes;
  private readonly moduleSockets: WebSocketServer;
  private readonly sockets = new Set<WebSocket>();
  private readonly heartbeat: Heartbeat;
  private closing: Promise<void> | undefined;
  /** Upgrades refused for `max_connections` since the last warning, and when that was. */
  private refusedFull = 0;
  private fullLoggedAt = 0;

  constructor(
    private readonly core: EngineCore,
    private readonly options: WsServerOptions,
  ) {
    this.routes = options.routes ?? new SocketRoutes();
    this.endpoints = options.endpoints ?? new PlainEndpoints();
    const wsOptions = {
      noServer: true,
      perMessageDeflate: false,
      clientTracking: false,
      maxPayload: options.maxPayload,
    };
    this.workers = new WebSocketServer(wsOptions);
    // the worker protocol's upgrade answer says which optional features the engine accepts (frame batches), and the
    // largest message it takes: a worker that knows it refuses a larger frame itself instead of losing its connection
    const answer = [`${FEATURES_HEADER}: ${FEATURE_BATCH}`, `${MAX_PAYLOAD_HEADER}: ${options.maxPayload}`];
    this.workers.on('headers', (headers: string[]) => headers.push(...answer));
    this.otel = new WebSocketServer(wsOptions);
    this.moduleSockets = new WebSocketServer(wsOptions);
    this.heartbeat = new Heartbeat(options.heartbeatIntervalMs, options.heartbeatTimeoutMs, (b) => this.dead(b));
    // Check header deadlines every second (Node's default sweep is 30 s), so a slow upgrade is cut on time.
    const sweepMs = Math.max(100, Math.min(1000, Math.floor(options.handshakeTimeoutMs / 2)));
    this.http = createServer({ connectionsCheckingInterval: sweepMs }, (req, res) => this.plainHttp(req, res));
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

  private plainHttp(req: IncomingMessage, res: ServerResponse): void {
    const route = req.method === 'GET' || req.method === 'HEAD' ? this.endpoints.http.get(pathOf(req.url)) : undefined;
    if (route === undefined) {
      res.writeHead(426, { 'content-type': 'text/plain', upgrade: 'websocket' });
      res.end('This is the svc engine: connect with a WebSocket (an SDK worker), not plain HTTP.\n');
      return;
    }
    try {
      route(req, res);
    } catch (err) {
      this.options.logger.error({ err, path: req.url }, 'HTTP route failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error\n');
    }
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', (err) => this.options.logger.debug({ err }, 'socket error during upgrade'));
    const path = pathOf(req.url);
    if (this.closing !== undefined) {
      socket.destroy();
    } else if (this.sockets.size >= this.options.maxConnections) {
      this.refuseFull(socket, path);
    } else if (path === '/') {
      this.workers.handleUpgrade(req, socket, head, (ws) => this.onWorker(ws, req, socket));
    } else if (path === '/otel') {
      this.otel.handleUpgrade(req, socket, head, (ws) => this.onOtel(ws, req));
    } else {
      const route = this.routes.match(path);
      if (route) this.routeUpgrade(route, req, socket, head, path);
      else socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    }
  }

  /**
   * An upgrade past `max_connections`: 503 with a Retry-After, so an SDK backs off and tries again. Logged at most
   * once per `FULL_LOG_EVERY_MS`: a client retrying in a loop must not flood the log.
   */
  private refuseFull(socket: Duplex, path: string): void {
    const max = this.options.maxConnections;
    const text = `svc engine: this listener holds ${max} connections (max_connections); try again later\n`;
    socket.end(
      'HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 5\r\nContent-Type: text/plain\r\n' +
        `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
    );
    this.refusedFull++;
    const now = Date.now();
    if (now - this.fullLoggedAt >= FULL_LOG_EVERY_MS) {
      this.options.logger.warn(
        { maxConnections: max, refused: this.refusedFull, path },
        'connection refused: the listener holds max_connections connections',
      );
      this.fullLoggedAt = now;
      this.refusedFull = 0;
    }
  }

  // ── module routes (seam for the data channels module; keep the rest of this file free of channel logic) ──
  private routeUpgrade(route: SocketRoute, req: IncomingMessage, socket: Duplex, head: Buffer, path: string): void {
    const query = new URLSearchParams(req.url?.slice(path.length).replace(/^\?/, '') ?? '');
    let answer: ReturnType<SocketRoute>;
    try {
      answer = route({ path, query, remoteAddress: req.socket.remoteAddress });
    } catch (err) {
      this.options.logger.error({ err, path }, 'socket route failed');
      answer = { kind: 'refuse', status: 404, message: 'not found' };
    }
    if (answer.kind === 'refuse') {
      const text = answer.message + '\n';
      const status =
        answer.status === 400 ? '400 Bad Request' : answer.status === 403 ? '403 Forbidden' : '404 Not Found';
      socket.end(
        `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: text/plain\r\n` +
          `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
      );
      return;
    }
    this.moduleSockets.handleUpgrade(req, socket, head, (ws) => {
      this.sockets.add(ws);
      ws.on('error', (err) => this.options.logger.debug({ err: err.message, path }, 'module socket error'));
      ws.on('close', () => this.sockets.delete(ws));
      try {
        answer.open(wsPeerSocket(ws));
      } catch (err) {
        this.options.logger.error({ err, path }, 'socket route failed to open');
        ws.terminate();
      }
    });
  }

  private onWorker(ws: WebSocket, req: IncomingMessage, socket: Duplex): void {
    const { logger, maxBufferedBytes, gate } = this.options;
    const conn = new WsConnection(ws, socket, features(req), req.socket.remoteAddress, maxBufferedBytes, logger);
    this.track(ws, conn);
    if (gate !== undefined) return this.admitWorker(ws, req, conn, gate);
    const worker = this.core.attach(conn);
    const onFrame = this.frameHandler(worker, conn, undefined);
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      conn.seen = true;
      onFrame(data, isBinary);
    });
    ws.on('close', () => this.workerClosed(ws, conn, worker));
  }

  /**
   * Access control (docs/adr/0007): a listener with access rules. The gate decides the session during the
   * upgrade; frames wait (bounded) until then, and afterwards go through the session before the core.
   */
  private admitWorker(ws: WebSocket, req: IncomingMessage, conn: WsConnection, gate: ListenerGate): void {
    const early: [Buffer, boolean][] = [];
    let onFrame: ((data: Buffer, isBinary: boolean) => void) | undefined;
    let worker: Worker | undefined;
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      conn.seen = true;
      if (onFrame !== undefined) return onFrame(data, isBinary);
      early.push([data, isBinary]);
      if (early.length > MAX_FRAMES_BEFORE_ADMISSION) conn.close(1008, 'too many frames before the session was set');
    });
    ws.on('close', () => this.workerClosed(ws, conn, worker));
    void gate.admit(upgradeInfo(req)).then((admission) => {
      if (ws.readyState !== ws.OPEN || this.closing !== undefined) return;
      if (!admission.ok) {
        this.options.logger.warn({ remoteAddress: conn.remoteAddress, error: admission.error }, 'worker refused');
        conn.send({ type: 'error', error: admission.error });
        conn.close(1008, admission.error.code);
        return;
      }
      worker = this.core.attach(admission.session.wrap(conn));
      onFrame = this.frameHandler(worker, conn, admission.session);
      for (const [data, isBinary] of early.splice(0)) onFrame(data, isBinary);
    });
  }

  private frameHandler(
    worker: Worker,
    conn: WsConnection,
    session: GateSession | undefined,
  ): (data: Buffer, isBinary: boolean) => void {
    const errors = new FrameErrors(conn, this.options.logger);
    const onText = (text: string): void => {
      const decoded = decodeFrame(text);
      let message: Message;
      let raw: string | undefined = text;
      if (decoded.ok) message = decoded.message;
      else {
        errors.report(decoded, worker.id);
        const failed = brokenResult(text, decoded);
        if (failed === undefined) return;
        message = failed;
        raw = undefined; // never relayed as it came
      }
      if (session === undefined) this.deliver(worker, message, raw);
      else this.deliverGated(session, worker, message, raw);
    };
    // a worker that announced frame batches may send several frames in one message
    const batches = conn.features.has(FEATURE_BATCH);
    return (data, isBinary) => {
      if (isBinary && isTelemetryFrame(data)) {
        this.endpoints.telemetrySink?.(data);
        return;
      }
      const text = data.toString();
      if (batches && text.includes(FRAME_SEPARATOR)) for (const frame of text.split(FRAME_SEPARATOR)) onText(frame);
      else onText(text);
    };
  }

  private workerClosed(ws: WebSocket, conn: WsConnection, worker: Worker | undefined): void {
    this.untrack(ws, conn);
    if (worker === undefined) return;
    try {
      this.core.detach(worker);
    } catch (err) {
      this.options.logger.error({ err, workerId: worker.id }, 'failed to clean up after a worker');
    }
  }

  /** Access control (docs/adr/0007): the registration check and the pre-dispatch check run in `session.receive`. */
  private deliverGated(session: GateSession, worker: Worker, message: Message, raw: string | undefined): void {
    try {
      session.receive(worker, message, raw);
    } catch (err) {
      this.options.logger.error({ err, type: message.type, workerId: worker.id }, 'failed to handle a frame');
    }
  }

  private deliver(worker: Worker, message: Message, raw: string | undefined): void {
    try {
      this.core.receive(worker, message, raw);
    } catch (err) {
      // A bug must not take the engine down with it: log it and keep serving.
      this.options.logger.error({ err, type: message.type, workerId: worker.id }, 'failed to handle a frame');
    }
  }

  private onOtel(ws: WebSocket, req: IncomingMessage): void {
    const beating: Beating = { ws, seen: false, lastSeenMs: 0 };
    this.track(ws, beating);
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      beating.seen = true;
      if (isBinary) this.endpoints.telemetrySink?.(data); // text frames are ignored (docs/protocol.md, 1.7)
    });
    ws.on('close', () => this.untrack(ws, beating));
    // The telemetry socket is refused by the same auth as the worker socket (nothing else of a session applies).
    void this.options.gate?.admit(upgradeInfo(req)).then((admission) => {
      if (admission.ok || ws.readyState !== ws.OPEN) return;
      ws.send(JSON.stringify({ type: 'error', error: admission.error }));
      ws.close(1008, admission.error.code);
    });
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
  return parseFeatures(req.headers[FEATURES_HEADER]);
}
