/**
 * The write end of a data channel: `stream` (a Writable of binary frames, split at 64 KiB) and `sendMessage`
 * (one text frame). The socket opens on first use. A write completes when its frames were handed to the OS, so
 * `stream.write()` returning false, and `drain`, carry the engine's backpressure (a slow reader) to the caller.
 * `stream.end()` closes the channel with 1000 `stream_complete` after the last frame; `close()` with 1000
 * `channel_close`. When the reader goes away the engine closes this end and `stream` is destroyed without an error
 * (writes fail through their callbacks, `closed` resolves): that is how a handler learns its client left. A channel
 * already gone when this end opens (the engine answers 404: its reader left, or it was removed) ends the same way;
 * any other refusal or socket error destroys `stream` with that error.
 */
import { Writable } from 'node:stream';
import WebSocket from 'ws';
import { zeroMask } from '../connection/zero-mask.js';
import { channelUrl, refusal, type StreamChannelRef } from './refs.js';

const FRAME_SIZE = 64 * 1024;
const HANDSHAKE_TIMEOUT_MS = 10_000;

export class ChannelWriter {
  static readonly FRAME_SIZE = FRAME_SIZE;
  readonly stream: Writable;
  /** Resolves with the close code once the channel socket closed (for whatever reason). */
  readonly closed: Promise<number>;
  private readonly url: string;
  private ws: WebSocket | undefined;
  private resolveClosed!: (code: number) => void;
  private ended = false;
  /** The HTTP status the engine refused this end's upgrade with, if it did. */
  private refused: number | undefined;

  constructor(engineUrl: string, ref: StreamChannelRef) {
    this.url = channelUrl(engineUrl, ref, 'write');
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    this.stream = new Writable({
      write: (chunk: Buffer, _encoding, callback) => this.sendChunked(chunk, callback),
      final: (callback) => {
        this.finish(1000, 'stream_complete');
        callback();
      },
      destroy: (err, callback) => {
        if (this.ws && this.ws.readyState !== WebSocket.CLOSED && !this.ended) this.ws.terminate();
        callback(err);
      },
    });
  }

  /** Sends one text frame (a control message such as `{"type":"set_status",…}`). */
  sendMessage(text: string): void {
    this.send(Buffer.from(text), false, (err) => {
      if (err) this.stream.destroy(err);
    });
  }

  /** Closes the channel (1000 `channel_close`) after what was already sent. */
  close(): void {
    this.finish(1000, 'channel_close');
  }

  private finish(code: number, reason: string): void {
    if (this.ended) return;
    this.ended = true;
    const ws = this.socket();
    if (ws.readyState === WebSocket.CONNECTING) ws.once('open', () => ws.close(code, reason));
    else if (ws.readyState === WebSocket.OPEN) ws.close(code, reason);
  }

  private sendChunked(data: Buffer, callback: (err?: Error | null) => void): void {
    let offset = 0;
    const next = (err?: Error): void => {
      if (err || offset >= data.length) {
        callback(err ?? null);
        return;
      }
      const part = data.subarray(offset, offset + FRAME_SIZE);
      offset += part.length;
      this.send(part, true, next);
    };
    next();
  }

  private send(data: Buffer, binary: boolean, done: (err?: Error) => void): void {
    const ws = this.socket();
    if (ws.readyState === WebSocket.CONNECTING) {
      // waits for the socket; one that closes without opening fails the write
      const onOpen = (): void => {
        ws.off('close', onClose);
        this.send(data, binary, done);
      };
      const onClose = (): void => {
        ws.off('open', onOpen);
        this.fail(done);
      };
      ws.once('open', onOpen);
      ws.once('close', onClose);
      return;
    }
    if (ws.readyState !== WebSocket.OPEN) {
      this.fail(done);
      return;
    }
    ws.send(data, { binary }, (err) => (err ? this.fail(done, err) : done()));
  }

  /**
   * A write that finds the socket closing or closed (its `close` event may not have come yet) means the reader left
   * or the channel was closed: the stream is destroyed without an error first, so the write's callback gets the
   * failure and the stream emits no `'error'` that a handler writing until its client leaves would not expect.
   */
  private fail(done: (err?: Error) => void, err?: Error): void {
    if (!this.stream.destroyed) this.stream.destroy();
    done(
      err ??
        new Error(this.refused === 404 ? 'channel is gone: its reader left, or it was removed' : 'channel is closed'),
    );
  }

  private socket(): WebSocket {
    if (this.ws) return this.ws;
    const ws = new WebSocket(this.url, {
      handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
      perMessageDeflate: false,
      generateMask: zeroMask,
    });
    this.ws = ws;
    ws.once('unexpected-response', (_req, res) => {
      this.refused = res.statusCode;
      res.resume();
      ws.terminate(); // ends in 'error' and 'close', below
    });
    ws.on('error', (err) => {
      if (this.stream.destroyed) return;
      if (this.refused === 404) this.stream.destroy();
      else this.stream.destroy(this.refused === undefined ? err : new Error(refusal(this.refused)));
    });
    ws.on('close', (code) => {
      this.resolveClosed(code);
      if (!this.stream.destroyed && !this.stream.writableFinished) this.stream.destroy();
    });
    return ws;
  }
}
