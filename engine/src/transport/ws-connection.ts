/**
 * One worker's WebSocket, seen by the core as a `Connection`. Outbound frames written in the same turn of the
 * event loop are coalesced into one socket write (laid out in one buffer that is written after the turn's I/O
 * callbacks: the frames relayed from every worker socket read in that turn leave together, `FrameWriter`), or
 * one write per `TURN_FLUSH_BYTES` when the turn holds more, so the peer can start on them while the rest are
 * built; a peer that stops reading is disconnected once its
 * outbound buffer passes the bound, instead of growing the engine's memory.
 */
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocket } from 'ws';
import { FEATURE_APPENDED_FIELDS, FEATURE_BATCH, FrameWriter, type EngineToWorker } from '@svc/sdk/core';
import type { Connection, ForwardOutcome, RawFrame } from '../core/connection.js';
import type { Beating } from './heartbeat.js';
import { appendedText, forwardableText, type TraceReplacement } from './raw-frame.js';
import { encodeInvoke } from './shared-payload.js';

/** Close code sent when a peer's outbound buffer passes its bound (1008: policy violation). */
export const CLOSE_SLOW_CONSUMER = 1008;

export class WsConnection implements Connection, Beating {
  readonly kind = 'ws' as const;
  readonly sharesObjects = false;
  seen = false;
  lastSeenMs = 0;
  private closed = false;
  /**
   * Set when no extension was negotiated (the server offers none): every frame is a plain frame, so ours are
   * written to the TCP socket by the writer, ahead of any frame of ws's own (pings, close); ws never holds a
   * frame back (it only queues while compressing). Undefined otherwise: frames go through `ws.send`, corked.
   */
  private readonly writer: FrameWriter | undefined;
  private corked = false;
  /** The worker reads the engine's fields appended to a forwarded call (`FEATURE_APPENDED_FIELDS`). */
  private readonly appendsFields: boolean;

  constructor(
    readonly ws: WebSocket,
    private readonly socket: Duplex,
    readonly features: ReadonlySet<string>,
    readonly remoteAddress: string | undefined,
    private readonly maxBufferedBytes: number,
    private readonly logger: Logger,
  ) {
    // frames go in batches to a worker that announced it reads them
    this.writer = ws.extensions === '' ? new FrameWriter(socket, false, features.has(FEATURE_BATCH)) : undefined;
    this.appendsFields = features.has(FEATURE_APPENDED_FIELDS);
  }

  send(message: EngineToWorker): boolean {
    let text: string;
    try {
      // a fan-out's shared payload is serialised once for all its frames (shared-payload.ts)
      text = message.type === 'invokefunction' ? encodeInvoke(message) : JSON.stringify(message);
    } catch (err) {
      // a value JSON cannot carry (BigInt, cycle) handed over in-process: refuse this frame, keep the connection. A
      // RangeError is data nested too deep to write again, which a client sent: its caller is told, not a bug here
      const level = err instanceof RangeError ? 'warn' : 'error';
      this.logger[level]({ err, type: message.type }, 'frame not encodable; not sent');
      return false;
    }
    return this.sendRaw(text);
  }

  /**
   * A caller's sync call as the text it came in (the JSON.parse that validated it saw exactly this text), with the
   * engine's fields appended for a worker that reads them, else `_caller_worker_id` spliced into `data` when due.
   * Declined when the text is not in the simple shape the splice handles, or the caller put its own
   * `_caller_worker_id` there: the core then re-encodes (overwriting it).
   */
  forwardInvoke(
    raw: RawFrame,
    data: unknown,
    callerWorkerId: string | undefined,
    trace?: TraceReplacement,
  ): ForwardOutcome {
    const text =
      (this.appendsFields ? appendedText(raw, data, callerWorkerId, trace) : undefined) ??
      forwardableText(raw, data, callerWorkerId, trace);
    if (text === undefined) return 'declined';
    return this.sendRaw(text) ? 'sent' : 'failed';
  }

  /** An executor's result relayed as the text it came in (same invocation id on both sides). */
  relayResult(raw: RawFrame): ForwardOutcome {
    if (typeof raw !== 'string') return 'declined';
    return this.sendRaw(raw) ? 'sent' : 'failed';
  }

  private sendRaw(text: string): boolean {
    const ws = this.ws;
    if (ws.readyState !== WebSocket.OPEN) return false;
    if (ws.bufferedAmount > this.maxBufferedBytes) {
      this.overflow();
      return false;
    }
    const writer = this.writer;
    if (writer !== undefined) {
      writer.text(text);
      return true;
    }
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      setImmediate(uncork, this);
    }
    ws.send(text);
    return true;
  }

  get open(): boolean {
    return !this.closed && this.ws.readyState === WebSocket.OPEN;
  }

  close(code = 1000, reason = ''): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.ws.close(code, reason);
    } catch {
      this.ws.terminate();
    }
  }

  terminate(): void {
    this.closed = true;
    this.ws.terminate();
  }

  /** @internal */
  flush(): void {
    this.corked = false;
    this.socket.uncork();
  }

  private overflow(): void {
    this.logger.warn(
      { remoteAddress: this.remoteAddress, bufferedBytes: this.ws.bufferedAmount, limit: this.maxBufferedBytes },
      'worker is not reading: outbound buffer over its bound, disconnecting it',
    );
    // The peer is not reading, so a close handshake would never finish: drop the socket.
    this.terminate();
  }
}

function uncork(conn: WsConnection): void {
  conn.flush();
}
