/**
 * The two data channels of one request (README.md, "Streaming (data channels)"): `request_body` (svc-http writes the
 * raw request bytes, the handler reads) and `response` (the handler may write `set_status` / `set_headers` text frames
 * and binary body frames, svc-http reads). Their refs go into the payload exactly as iii sends them.
 */
import type { Readable, Writable } from 'node:stream';
import type { StreamChannelRef } from '@svc/sdk';

/** svc-http's side of a request body that is streamed rather than read first. */
export interface BodyWriter {
  /** Binary frames to the handler, with backpressure (`write()` false until `drain`). */
  readonly stream: Writable;
}

/** svc-http's side of the response channel. */
export interface ResponseReader {
  readonly stream: Readable;
  onMessage(listener: (text: string) => void): void;
  close(): void;
}

export interface RequestChannels {
  /** For the payload: the reader ref of the request body, the writer ref of the response. */
  requestBodyRef: StreamChannelRef;
  responseRef: StreamChannelRef;
  /** Set when the body is streamed (not prefilled): svc-http pipes the request into it. */
  bodyWriter: BodyWriter | undefined;
  /** svc-http's reader of the response channel (made on first call: most handlers return a value instead). */
  response(): ResponseReader;
  /**
   * Calls `listener(true)` once the handler opened the response channel's write end, or `listener(false)` if the
   * request ended first (a callback, not a promise: this is set up for every request).
   */
  onResponseWriterTaken(listener: (taken: boolean) => void): void;
  /** Frees both channels (whatever end nobody took). Idempotent, never throws. */
  release(): void;
}

/**
 * Opens a request's channels. `prefill` is a body already read (it is handed over whole and the channel ends);
 * undefined means the body will be streamed through `bodyWriter`.
 */
export interface ChannelPort {
  open(prefill: Buffer | undefined): Promise<RequestChannels>;
  /** The same without waiting, when the channels are at hand (made ahead); undefined otherwise. */
  openReady?(prefill: Buffer | undefined): RequestChannels | undefined;
}
