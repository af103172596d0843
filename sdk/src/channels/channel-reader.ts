/**
 * The read end of a data channel: binary frames come out of `stream` (a Readable), text frames go to the
 * `onMessage` listeners. The socket opens on first read (or on `onMessage`/`readAll`); when `stream`'s buffer is
 * full the socket is paused, so the engine, then the writer, are held back. A normal Close ends `stream`; an
 * abnormal one (the writer dropped, the channel expired) fails it with `ChannelClosedError`.
 */
import { Readable } from 'node:stream';
import WebSocket from 'ws';
import { zeroMask } from '../connection/zero-mask.js';
import { ChannelClosedError, channelUrl, refusal, type StreamChannelRef } from './refs.js';

const HANDSHAKE_TIMEOUT_MS = 10_000;

export class ChannelReader {
  readonly stream: Readable;
  private readonly url: string;
  private ws: WebSocket | undefined;
  private readonly listeners: Array<(text: string) => void> = [];

  constructor(engineUrl: string, ref: StreamChannelRef) {
    this.url = channelUrl(engineUrl, ref, 'read');
    this.stream = new Readable({
      read: () => {
        const ws = this.connect();
        if (ws.isPaused) ws.resume();
      },
      destroy: (err, callback) => {
        if (this.ws && this.ws.readyState !== WebSocket.CLOSED) this.ws.terminate();
        callback(err);
      },
    });
  }

  /** Calls `listener` with every text frame, in order. Opens the channel. */
  onMessage(listener: (text: string) => void): void {
    this.listeners.push(listener);
    this.connect();
  }

  /** The whole binary body, once the writer closed. */
  async readAll(): Promise<Buffer> {
    this.connect();
    const chunks: Buffer[] = [];
    for await (const chunk of this.stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  /** Stops reading: the engine closes the writer's end too. */
  close(): void {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.close(1000, 'channel_close');
    else this.ws?.terminate();
  }

  private connect(): WebSocket {
    if (this.ws) return this.ws;
    const ws = new WebSocket(this.url, {
      handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
      perMessageDeflate: false,
      generateMask: zeroMask,
    });
    this.ws = ws;
    let refused: number | undefined;
    ws.on('message', (data: Buffer, binary: boolean) => {
      if (!binary) {
        const text = data.toString('utf8');
        for (const listener of this.listeners) listener(text);
      } else if (!this.stream.push(data)) {
        ws.pause();
      }
    });
    ws.on('close', (code, reason) => {
      if (this.stream.destroyed) return;
      if (code === 1000 || code === 1005) this.stream.push(null);
      else this.stream.destroy(new ChannelClosedError(code, reason.toString()));
    });
    ws.once('unexpected-response', (_req, res) => {
      refused = res.statusCode;
      res.resume();
      ws.terminate(); // ends in 'error' and 'close', below
    });
    ws.on('error', (err) => {
      if (this.stream.destroyed) return;
      this.stream.destroy(refused === undefined ? err : new Error(refusal(refused)));
    });
    return ws;
  }
}
