/**
 * The WebSocket transport: one `ws` connection to the engine, reconnected with backoff and jitter for as long as
 * the reconnection config allows (forever by default). Given several engine URLs (`ws://a,ws://b`, the engines of
 * one cluster), it fails over: a connection that closes or cannot be opened is retried on the next URL, at once
 * for a connection that was open, with backoff once every URL has been tried in a row.
 *
 * Ownership: the transport owns its socket, its reconnect timer and its heartbeat timer. `close()` stops
 * reconnecting, closes the socket (terminating it if the close handshake does not finish within a second) and is
 * idempotent. A half-open connection is detected by an idle deadline refreshed by every inbound frame (message,
 * ping or pong); a WS ping is sent every `pingIntervalMs` so a healthy engine always has something to answer. When
 * the engine pings us itself, the deadline shrinks to three of its ping intervals (never above `idleTimeoutMs`).
 *
 * Frames sent in the same turn of the event loop leave in one socket write (frame-writer.ts): they are laid out
 * in one buffer that is written once the turn's I/O callbacks have run, so 256 calls started together cost one
 * write, not 256, and so do calls started by 256 HTTP requests that arrived in the same turn (each on its own
 * socket, so a `process.nextTick` would have flushed after every one of them). A turn holding more than
 * `TURN_FLUSH_BYTES` is written in parts of that size as it goes, so the engine starts on them early. Answers to invocations are the
 * exception: they leave at the end of the callback that produced them (see `send`).
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import WebSocket from 'ws';
import type { Logger } from 'pino';
import { decodeFrame } from '../codec.js';
import {
  FEATURE_APPENDED_FIELDS,
  FEATURE_BATCH,
  FEATURE_CANCEL,
  FEATURES_HEADER,
  FRAME_SEPARATOR,
  MAX_PAYLOAD_HEADER,
  parseFeatures,
  type WorkerToEngine,
} from '../protocol.js';
import { FrameTooLargeError } from '../errors.js';
import type { ReconnectionConfig } from '../types.js';
import { backoffDelay, resolveReconnection } from './backoff.js';
import { FrameWriter } from './frame-writer.js';
import { zeroMask } from './zero-mask.js';
import type { ClientTransport, TransportEvents } from './transport.js';
import { encodeFrame } from '../codec.js';

export interface WsTransportOptions {
  /** Extra HTTP headers on the upgrade request. */
  headers?: Record<string, string>;
  reconnection?: Partial<ReconnectionConfig>;
  /** Default 20000. */
  pingIntervalMs?: number;
  /** Default 60000. */
  idleTimeoutMs?: number;
  /** Default 10000. */
  handshakeTimeoutMs?: number;
  /** Largest inbound frame accepted, bytes. Default 64 MiB. */
  maxPayload?: number;
  logger?: Logger;
}

const CLOSE_GRACE_MS = 1000;
/** The heartbeat timer's resolution. */
const HEARTBEAT_TICK_MS = 500;
/** The shortest idle deadline learned from the engine's pings. */
const MIN_LEARNED_IDLE_MS = 2000;
/** How often a worker that cannot reach the engine says so at warn level. */
const UNREACHABLE_WARN_EVERY_MS = 30000;

export class WsTransport implements ClientTransport {
  private readonly reconnection: ReconnectionConfig;
  private readonly headers: Record<string, string>;
  private readonly pingIntervalMs: number;
  private readonly idleTimeoutMs: number;
  private ws: WebSocket | undefined;
  private events: TransportEvents | undefined;
  private attempt = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private lastInbound = 0;
  /** A frame arrived since the last heartbeat tick. */
  private inbound = false;
  private lastPing = 0;
  private lastEnginePing = 0;
  private lastError: string | undefined;
  private lastUnreachableWarn = 0;
  private effectiveIdleMs: number;
  private closing: Promise<void> | undefined;
  private open = false;
  /**
   * Writes the frames of the open WebSocket to its TCP socket (from its upgrade response), when no extension was
   * negotiated (we offer none); undefined otherwise, and frames go through `ws.send`.
   */
  private writer: FrameWriter | undefined;
  private answerFlushQueued = false;
  private readonly flushAnswers = (): void => {
    this.answerFlushQueued = false;
    this.writer?.flush();
  };
  /** The largest message the engine takes (its upgrade answer's MAX_PAYLOAD_HEADER); undefined: it did not say. */
  private engineMaxPayload: number | undefined;
  private readonly urls: string[];
  private urlIndex = 0;
  /** Connection attempts since the last open one, across URLs (backoff starts once every URL failed). */
  private failedInRow = 0;

  constructor(
    url: string | readonly string[],
    private readonly options: WsTransportOptions = {},
  ) {
    this.urls = parseEngineUrls(url);
    this.reconnection = resolveReconnection(options.reconnection);
    this.pingIntervalMs = options.pingIntervalMs ?? 20000;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 60000;
    this.effectiveIdleMs = this.idleTimeoutMs;
    this.headers = withFeatures(options.headers ?? {});
  }

  /** The engine URL this transport is connected (or connecting) to. */
  get url(): string {
    return this.urls[this.urlIndex]!;
  }

  get isOpen(): boolean {
    return this.open;
  }

  start(events: TransportEvents): void {
    if (this.events !== undefined) throw new Error('transport already started');
    this.events = events;
    this.connect();
  }

  send(message: WorkerToEngine): boolean {
    const ws = this.ws;
    // A socket in its closing handshake would drop the frame silently; report it unsent so the client queues it.
    if (!this.open || ws === undefined || ws.readyState !== WebSocket.OPEN) return false;
    const text = encodeFrame(message);
    const limit = this.engineMaxPayload;
    // 3 bytes per UTF-16 unit at most: only a text that long can be over, and only it is measured.
    if (limit !== undefined && text.length * 3 > limit) {
      const bytes = Buffer.byteLength(text);
      if (bytes > limit) throw new FrameTooLargeError(bytes, limit);
    }
    const writer = this.writer;
    if (writer !== undefined) writer.text(text);
    else ws.send(text);
    // A handler's answer leaves when the callback that produced it ends (its microtasks included), not at the end
    // of the turn: held until then, it would die with a process killed later in the same turn (another handler's
    // kill -9, an OOM), and the engine would run the call again.
    if (message.type === 'invocationresult' && writer !== undefined && !this.answerFlushQueued) {
      this.answerFlushQueued = true;
      process.nextTick(this.flushAnswers);
    }
    return true;
  }

  sendTelemetry(frame: Uint8Array): boolean {
    const ws = this.ws;
    if (!this.open || ws === undefined || ws.readyState !== WebSocket.OPEN) return false;
    const limit = this.engineMaxPayload;
    if (limit !== undefined && frame.length > limit) {
      // The engine would close the connection (1009), failing every call on it: the batch is dropped instead.
      this.options.logger?.warn(
        { bytes: frame.length, limit },
        'telemetry batch larger than the engine takes in one message; dropped',
      );
      return false;
    }
    ws.send(frame, { binary: true });
    return true;
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private connect(): void {
    this.reconnectTimer = undefined;
    if (this.closing !== undefined) return;
    const ws = new WebSocket(this.url, {
      headers: this.headers,
      handshakeTimeout: this.options.handshakeTimeoutMs ?? 10000,
      perMessageDeflate: false,
      maxPayload: this.options.maxPayload ?? 64 * 1024 * 1024,
      generateMask: zeroMask,
    });
    this.ws = ws;
    let socket: Socket | undefined;
    let batchesOut = false;
    let maxPayload: number | undefined;
    ws.on('upgrade', (res: IncomingMessage) => {
      socket = res.socket;
      batchesOut = parseFeatures(res.headers[FEATURES_HEADER]).has(FEATURE_BATCH);
      maxPayload = parseMaxPayload(res.headers[MAX_PAYLOAD_HEADER]);
    });
    ws.on('open', () => {
      if (ws === this.ws) this.engineMaxPayload = maxPayload;
      this.onOpen(ws, socket, batchesOut);
    });
    ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    ws.on('ping', () => this.onEnginePing());
    ws.on('pong', () => (this.lastInbound = Date.now()));
    ws.on('error', (err) => {
      this.lastError = err.message;
      this.options.logger?.debug({ err: err.message, url: this.url }, 'engine connection error');
    });
    ws.on('close', (code, reason) => this.onSocketClose(ws, code, reason.toString()));
  }

  /** `batchesOut`: the engine answered the upgrade saying it accepts frame batches. */
  private onOpen(ws: WebSocket, socket: Socket | undefined, batchesOut: boolean): void {
    if (ws !== this.ws) return;
    // no extension negotiated: every frame is a plain frame, and ours are written straight to the TCP socket
    this.writer = socket !== undefined && ws.extensions === '' ? new FrameWriter(socket, true, batchesOut) : undefined;
    this.open = true;
    this.attempt = 0;
    this.failedInRow = 0;
    this.lastInbound = Date.now();
    this.lastPing = this.lastInbound;
    this.lastEnginePing = 0;
    this.effectiveIdleMs = this.idleTimeoutMs;
    this.startHeartbeat(ws);
    this.events?.onOpen();
  }

  /**
   * Our engine pings every worker on its own schedule. Learning that cadence lets a half-open connection be
   * noticed after three missed pings instead of after the fixed idle deadline (an engine that never pings keeps
   * the fixed deadline).
   */
  private onEnginePing(): void {
    const now = Date.now();
    if (this.lastEnginePing > 0) {
      const learned = Math.max(MIN_LEARNED_IDLE_MS, 3 * (now - this.lastEnginePing));
      this.effectiveIdleMs = Math.min(this.idleTimeoutMs, learned);
    }
    this.lastEnginePing = now;
    this.lastInbound = now;
  }

  private onMessage(data: WebSocket.RawData, isBinary: boolean): void {
    this.inbound = true; // the heartbeat tick turns this into a timestamp: no clock read per frame
    const text = typeof data === 'string' ? data : rawToString(data);
    // we announce frame batches, so the engine may send several frames in one message
    if (text.includes(FRAME_SEPARATOR)) {
      for (const frame of text.split(FRAME_SEPARATOR)) this.onFrame(frame, isBinary);
    } else this.onFrame(text, isBinary);
  }

  private onFrame(text: string, isBinary: boolean): void {
    const decoded = decodeFrame(text);
    if (!decoded.ok) {
      const level = decoded.reason === 'unknown_type' || decoded.reason === 'empty' ? 'debug' : 'warn';
      this.options.logger?.[level]({ reason: decoded.reason, binary: isBinary }, `ignored frame: ${decoded.message}`);
      return;
    }
    // The engine never sends worker-bound frames of the W→E-only kinds; the codec accepts the union of both.
    this.events?.onMessage(decoded.message as Parameters<TransportEvents['onMessage']>[0]);
  }

  private onSocketClose(ws: WebSocket, code: number, reason: string): void {
    if (ws !== this.ws) return;
    this.stopHeartbeat();
    const wasOpen = this.open;
    this.open = false;
    this.ws = undefined;
    this.writer = undefined;
    // Another engine of the cluster is tried at once, until every one of them failed in a row; only then does
    // the reconnection config (backoff, max retries) apply, so each retry is a round over every URL.
    const failover = this.closing === undefined && this.urls.length > 1 && this.failedInRow + 1 < this.urls.length;
    const willReconnect = this.closing === undefined && (failover || this.mayRetry());
    if (wasOpen || !willReconnect) this.events?.onClose({ code, reason, willReconnect });
    if (!willReconnect) return;
    if (this.urls.length > 1) {
      this.urlIndex = (this.urlIndex + 1) % this.urls.length;
      if (failover) {
        this.failedInRow++;
        this.options.logger?.info({ url: this.url }, 'failing over to the next engine');
        this.reconnectTimer = setTimeout(() => this.connect(), 0);
        return;
      }
      this.failedInRow = 0;
    }
    this.scheduleReconnect();
  }

  private mayRetry(): boolean {
    return this.reconnection.maxRetries < 0 || this.attempt < this.reconnection.maxRetries;
  }

  private scheduleReconnect(): void {
    const delay = backoffDelay(this.reconnection, this.attempt);
    this.attempt++;
    const now = Date.now();
    // Someone who started a worker with the wrong SVC_URL must see why nothing happens, without a log flood.
    if (this.attempt > 1 && now - this.lastUnreachableWarn >= UNREACHABLE_WARN_EVERY_MS) {
      this.lastUnreachableWarn = now;
      this.options.logger?.warn(
        { url: this.url, err: this.lastError, attempt: this.attempt - 1, retryInMs: delay },
        'cannot reach the engine; retrying',
      );
    } else {
      this.options.logger?.debug({ delay, attempt: this.attempt, url: this.url }, 'reconnecting to the engine');
    }
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  /** One timer does both jobs: ping on schedule, and terminate a connection that went silent. */
  private startHeartbeat(ws: WebSocket): void {
    const tick = Math.max(10, Math.min(HEARTBEAT_TICK_MS, this.pingIntervalMs / 4, this.idleTimeoutMs / 4));
    this.heartbeatTimer = setInterval(() => {
      const now = Date.now();
      if (this.inbound) {
        this.inbound = false;
        this.lastInbound = now;
      }
      if (now - this.lastInbound > this.effectiveIdleMs) {
        this.options.logger?.warn({ idleMs: now - this.lastInbound }, 'engine connection idle; reconnecting');
        ws.terminate();
        return;
      }
      if (now - this.lastPing >= this.pingIntervalMs) {
        this.lastPing = now;
        ws.ping();
      }
    }, tick);
    this.heartbeatTimer.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeatTimer !== undefined) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
  }

  private async shutdown(): Promise<void> {
    if (this.reconnectTimer !== undefined) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    const ws = this.ws;
    if (ws === undefined) {
      if (this.events !== undefined && !this.open)
        this.events.onClose({ code: 1000, reason: 'closed', willReconnect: false });
      return;
    }
    if (ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS);
      ws.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
      else ws.close(1000, 'client closing');
    });
  }
}

/**
 * One URL, a comma-separated list (`SVC_URL=ws://a:49134,ws://b:49134`) or an array: the engines to try, in order.
 * Throws on an empty list or an entry that is not a ws:// or wss:// URL.
 */
export function parseEngineUrls(url: string | readonly string[]): string[] {
  const list = (typeof url === 'string' ? url.split(',') : [...url]).map((u) => u.trim()).filter((u) => u !== '');
  if (list.length === 0) throw new Error('engine URL: expected ws://host:port (or several, comma-separated)');
  for (const u of list) {
    if (!/^(wss?|https?):\/\/[^\s]+$/.test(u)) {
      throw new Error(`engine URL '${u}' is not a ws:// or wss:// URL (several engines: comma-separated)`);
    }
  }
  return list;
}

function rawToString(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/** The user's headers plus our feature list (merged with any features the user announced himself). */
function withFeatures(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const features = new Set([FEATURE_CANCEL, FEATURE_BATCH, FEATURE_APPENDED_FIELDS]);
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== FEATURES_HEADER) out[k] = v;
    else for (const f of parseFeatures(v)) features.add(f);
  }
  out[FEATURES_HEADER] = [...features].join(',');
  return out;
}

/** The engine's message limit from its upgrade answer: a positive integer, else undefined (not told, or garbled). */
function parseMaxPayload(header: string | string[] | undefined): number | undefined {
  const value = Number(Array.isArray(header) ? header[0] : header);
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}
