/**
 * A routed request with its data channels (PROTOCOL.md §6): the payload carries `request_body` and `response`
 * refs; a streamed request body is piped into `request_body` as it arrives (backpressure, no size limit); the
 * handler then answers either by returning `{status_code, headers, body}` or by writing the `response` channel.
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
import { dispatch, type DispatchOutcome, type Invoker } from './dispatch.js';
import type { LazyAbort } from './lazy-abort.js';
import type { HttpPayload } from './payload.js';
import type { BodyWriter, ChannelPort, RequestChannels } from './request-channels.js';
import type { StreamChannelRef } from '@svc/sdk';
import type { RouteTarget } from './route-table.js';

const HOP_BY_HOP = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade']);

export interface ChannelExchange {
  req: IncomingMessage;
  res: ServerResponse;
  cors: Record<string, string>;
  port: ChannelPort;
  invoker: Invoker;
  logger: Logger;
  target: RouteTarget;
  payload: HttpPayload;
  /** The request body already read (prefilled into `request_body`), or undefined to stream it. */
  readBody: Buffer | undefined;
  deadline: number;
  unwanted: LazyAbort;
  /** The request's span, parent of the call (when the worker records telemetry). */
  trace?: { traceparent: string; baggage: string | undefined } | undefined;
  /** Called once the streamed response has started: the request deadline stops applying. */
  onStreaming(): void;
}

/**
 * `answer(outcome)` sends a value / error outcome the usual way; the streamed paths are handled here. Resolves
 * once the response is decided (sent, or streaming); rejects if answering threw.
 */
export function runWithChannels(
  ex: ChannelExchange,
  answer: (outcome: DispatchOutcome) => void,
  failOpen: (err: unknown) => void,
): Promise<void> {
  // The pools made the channels ahead: the request goes out in the same turn, with no promise to wait for.
  const ready = ex.port.openReady?.(ex.readBody);
  if (ready !== undefined) return new Promise((done, fail) => withChannels(ex, ready, answer, done, fail));
  return ex.port
    .open(ex.readBody)
    .then((channels) => new Promise((done, fail) => withChannels(ex, channels, answer, done, fail)), failOpen);
}

/**
 * Calls the function and decides how the response goes: the returned value (not undefined/null) when it comes
 * first, else the response channel once the handler opened its write end and wrote to it (or closed it).
 * Callbacks, not races of promises: this runs for every request.
 */
function withChannels(
  ex: ChannelExchange,
  channels: RequestChannels,
  answer: (outcome: DispatchOutcome) => void,
  done: () => void,
  fail: (err: unknown) => void,
): void {
  ex.res.once('close', channels.release);
  if (ex.res.destroyed) {
    channels.release();
    done();
    return;
  }
  const payload: ChannelPayload = ex.payload;
  payload.request_body = channels.requestBodyRef;
  payload.response = channels.responseRef;
  if (channels.bodyWriter) pipeRequestBody(ex.req, channels.bodyWriter, ex.logger);
  let started: Promise<StreamStart> | undefined;
  const startReading = (): Promise<StreamStart> => (started ??= awaitStreamStart(channels.response));
  /** The function's outcome arrived (it decides, unless the streamed response had started before it). */
  let settled = false;
  let streaming = false;
  const stream = (start: StreamStart): void => {
    streaming = true;
    try {
      streamResponse(ex, start);
      done();
    } catch (err) {
      fail(err);
    }
  };
  dispatch(ex.invoker, ex.target, payload, ex.deadline, ex.unwanted, ex.trace).then((outcome) => {
    if (streaming) return logLateFailure(ex, outcome);
    settled = true;
    if (outcome.kind !== 'result' || (outcome.value !== undefined && outcome.value !== null)) {
      try {
        answer(outcome);
        done();
      } catch (err) {
        fail(err);
      }
      return;
    }
    // No value returned: the response is on the channel (it may still be arriving).
    startReading().then(stream, fail);
  }, fail);
  // svc-http reads the response channel only once the handler opened it (or returned no value).
  channels.responseWriterTaken().then((taken) => {
    if (!taken || settled) return;
    startReading().then((start) => {
      // a channel that broke before its first frame leaves the answer to the returned value
      if (!settled && start.kind !== 'failed') stream(start);
    }, fail);
  }, fail);
}

/** The payload with the refs of the request's channels added (PROTOCOL.md §6). */
type ChannelPayload = HttpPayload & { request_body?: StreamChannelRef; response?: StreamChannelRef };

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
