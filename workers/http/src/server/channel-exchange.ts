/**
 * A routed request with its data channels (README.md, "Streaming (data channels)"): the payload carries `request_body`
 * and `response` refs; a streamed request body is piped into `request_body` as it arrives (backpressure, no size
 * limit); the handler then answers either by returning `{status_code, headers, body}` or by writing the `response`
 * channel.
 *
 * Which answer wins follows the protocol: a returned value (not undefined/null) is the response; otherwise the
 * response starts at the channel's first binary frame (or its close). svc-http connects to the response channel
 * only once the handler opened its write end (the engine tells svc-http) or returned no value (frames wait in the
 * engine until then), so a handler that returns a value costs no extra socket. Once a streamed response has started the
 * request deadline no longer applies (Server-Sent Events stay open); when the client goes away the channels are
 * freed, which closes the handler's writer, and the invocation's signal fires.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';
import { awaitStreamStart, type StreamStart } from './channel-response.js';
import type { DispatchOutcome } from './dispatch.js';
import type { BodyWriter, ChannelPort, RequestChannels } from './request-channels.js';
import type { StreamChannelRef } from '@svc/sdk';

const HOP_BY_HOP = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade']);

/** The request as the channel path sees it (request-handler's exchange). */
export interface ChannelExchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly cors: Record<string, string>;
  readonly logger: Logger;
  /** The channels are open: the request keeps them (they are freed when it ends). False: it is over already. */
  adoptChannels(channels: RequestChannels): boolean;
  /** Calls the route's functions with the payload carrying these refs; `onOutcome` gets how that ended. */
  dispatch(
    requestBody: StreamChannelRef,
    response: StreamChannelRef,
    onOutcome: (outcome: DispatchOutcome) => void,
  ): void;
  /** Sends a value or error outcome the usual way (may throw). */
  answer(outcome: DispatchOutcome): void;
  /** The streamed response has started: the request deadline stops applying. */
  onStreaming(): void;
  /** The response is decided (sent, or streaming). */
  done(): void;
  /** Answering threw. */
  fail(err: unknown): void;
  /** The channels could not be opened. */
  failOpen(err: unknown): void;
}

/**
 * Opens the request's channels (from the pools when they are at hand: the request then goes out in the same
 * turn, with no promise to wait for) and runs the request with them. `readBody` is the body already read
 * (prefilled into `request_body`), or undefined to stream it.
 */
export function runWithChannels(ex: ChannelExchange, port: ChannelPort, readBody: Buffer | undefined): void {
  const ready = port.openReady?.(readBody);
  if (ready !== undefined) {
    withChannels(ex, ready);
    return;
  }
  port.open(readBody).then(
    (channels) => withChannels(ex, channels),
    (err: unknown) => ex.failOpen(err),
  );
}

function withChannels(ex: ChannelExchange, channels: RequestChannels): void {
  try {
    if (!ex.adoptChannels(channels)) {
      ex.done();
      return;
    }
    if (channels.bodyWriter) pipeRequestBody(ex.req, channels.bodyWriter, ex.logger);
    const flow = new ResponseFlow(ex, channels);
    ex.dispatch(channels.requestBodyRef, channels.responseRef, (outcome) => flow.onOutcome(outcome));
    // svc-http reads the response channel only once the handler opened it (or returned no value).
    channels.onResponseWriterTaken((taken) => flow.onWriterTaken(taken));
  } catch (err) {
    ex.fail(err);
  }
}

/**
 * Decides how the response goes: the returned value (not undefined/null) when it comes first, else the response
 * channel once the handler opened its write end and wrote to it (or closed it). Callbacks, not races of
 * promises: this runs for every request.
 */
class ResponseFlow {
  private started: Promise<StreamStart> | undefined;
  /** The function's outcome arrived (it decides, unless the streamed response had started before it). */
  private settled = false;
  private streaming = false;

  constructor(
    private readonly ex: ChannelExchange,
    private readonly channels: RequestChannels,
  ) {}

  onOutcome(outcome: DispatchOutcome): void {
    const { ex } = this;
    try {
      if (this.streaming) return logLateFailure(ex, outcome);
      this.settled = true;
      if (outcome.kind !== 'result' || (outcome.value !== undefined && outcome.value !== null)) {
        ex.answer(outcome);
        ex.done();
        return;
      }
      // No value returned: the response is on the channel (it may still be arriving).
      this.startReading().then(
        (start) => this.stream(start),
        (err: unknown) => ex.fail(err),
      );
    } catch (err) {
      ex.fail(err);
    }
  }

  onWriterTaken(taken: boolean): void {
    if (!taken || this.settled) return;
    try {
      this.startReading().then(
        (start) => {
          // a channel that broke before its first frame leaves the answer to the returned value
          if (!this.settled && start.kind !== 'failed') this.stream(start);
        },
        (err: unknown) => this.ex.fail(err),
      );
    } catch (err) {
      this.ex.fail(err);
    }
  }

  private startReading(): Promise<StreamStart> {
    return (this.started ??= awaitStreamStart(this.channels.response()));
  }

  private stream(start: StreamStart): void {
    this.streaming = true;
    try {
      streamResponse(this.ex, start);
      this.ex.done();
    } catch (err) {
      this.ex.fail(err);
    }
  }
}

/** Request bytes → the handler's `request_body`, paced by the channel (the socket is paused while it is full). */
function pipeRequestBody(req: IncomingMessage, writer: BodyWriter, logger: Logger): void {
  const out = writer.stream;
  out.on('error', (err: Error) => logger.debug({ err: err.message }, 'request body channel closed early'));
  req.on('aborted', () => out.destroy(new Error('client aborted the request body')));
  req.pipe(out);
}

function streamResponse(ex: ChannelExchange, start: StreamStart): void {
  const { req, res } = ex;
  if (res.headersSent || res.destroyed) {
    start.body.destroy();
    return;
  }
  ex.onStreaming();
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(start.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
  Object.assign(headers, ex.cors);
  if (start.kind !== 'body') {
    headers['content-length'] = '0';
    res.writeHead(start.status, headers);
    res.end();
    return;
  }
  res.writeHead(start.status, headers);
  res.flushHeaders();
  if (req.method === 'HEAD') {
    start.body.destroy();
    res.end();
    return;
  }
  res.once('close', () => {
    if (!res.writableFinished) start.body.destroy(); // the client left: stop reading the handler's stream
  });
  start.body.on('error', () => res.destroy()); // the handler's side broke mid-body: cut the response short
  start.body.pipe(res);
}

function logLateFailure(ex: ChannelExchange, outcome: DispatchOutcome): void {
  if (outcome.kind === 'error') {
    ex.logger.warn(
      { function_id: outcome.functionId, code: outcome.code, stack: outcome.stack },
      `handler failed after its streamed response started: ${outcome.message}`,
    );
  }
}
