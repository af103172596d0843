/**
 * One worker's WebSocket, seen by the core as a `Connection`. Outbound frames written in the same tick are
 * coalesced into one socket write (cork until the next tick); a peer that stops reading is disconnected once its
 * outbound buffer passes the bound, instead of growing the engine's memory.
 */
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocket } from 'ws';
import { encodeFrame, type EngineToWorker } from '@svc/sdk';
import type { Connection } from '../core/connection.js';
import type { Beating } from './heartbeat.js';

/** Close code sent when a peer's outbound buffer passes its bound (1008: policy violation). */
export const CLOSE_SLOW_CONSUMER = 1008;

export class WsConnection implements Connection, Beating {
  readonly kind = 'ws' as const;
  readonly sharesObjects = false;
  seen = false;
  lastSeenMs = 0;
  private corked = false;
  private closed = false;

  constructor(
    readonly ws: WebSocket,
    private readonly socket: Duplex,
    readonly features: ReadonlySet<string>,
    readonly remoteAddress: string | undefined,
    private readonly maxBufferedBytes: number,
    private readonly logger: Logger,
  ) {}

  send(message: EngineToWorker): boolean {
    let text: string;
    try {
      text = encodeFrame(message);
    } catch (err) {
      // a value JSON cannot carry (BigInt, cycle) handed over in-process: refuse this frame, keep the connection
      this.logger.error({ err, type: message.type }, 'frame not encodable; not sent');
      return false;
    }
    return this.sendRaw(text);
  }

  sendRaw(text: string): boolean {
    const ws = this.ws;
    if (ws.readyState !== WebSocket.OPEN) return false;
    if (ws.bufferedAmount > this.maxBufferedBytes) {
      this.overflow();
      return false;
    }
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(uncork, this);
    }
    ws.send(text);
    return true;
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
