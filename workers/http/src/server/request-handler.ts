/**
 * One HTTP request from arrival to response: preflight, routing (404/405), admission (503), body (413/400),
 * dispatch to the bound function with the request deadline (504), and the result's serialisation.
 *
 * A request holds a concurrency slot from admission until its response is finished or its socket closes; the
 * deadline and a client abort both end it, and the slot's release is idempotent, so every path gives it back.
 * Both also cancel the invocation (by its id; an invoker without `cancel` gets an AbortSignal instead).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';
import type { ConcurrencyLimiter, Slot } from './concurrency-limiter.js';
import type { CorsPolicy } from './cors.js';
import { dispatch, type DispatchOutcome, type Invoker } from './dispatch.js';
import { HttpErrorCode } from '../error-codes.js';
import { errorResponse, type PlainResponse } from './errors.js';
import { buildPayload } from './payload.js';
import { runWithChannels } from './channel-exchange.js';
import type { ChannelPort } from './request-channels.js';
import {
  BodyTooLargeError,
  declaredTooLarge,
  hasBody,
  InvalidJsonError,
  isStreamedBody,
  parseBody,
  readBody,
} from './request-body.js';
import { serializeResult } from './response.js';
import { describeRoute, type RouteMatch, type RouteTable } from './route-table.js';
import { LazyAbort } from './lazy-abort.js';
import { send } from './send.js';

export interface RequestHandlerOptions {
  routes: RouteTable;
  limiter: ConcurrencyLimiter;
  cors: CorsPolicy;
  invoker: Invoker;
  logger: Logger;
  defaultTimeoutMs: number;
  maxBodyBytes: number;
  /**
   * Opens each request's `request_body` / `response` data channels (PROTOCOL.md §6). Without it the payload
   * carries no channel refs and every body is read under `maxBodyBytes`.
   */
  channels?: ChannelPort;
  /** True once shutdown began: new requests get 503 and the connection is closed. */
  isDraining(): boolean;
}

export function createRequestHandler(opts: RequestHandlerOptions) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    handle(opts, req, res).catch((err: unknown) => {
      const failure = errorResponse(500, HttpErrorCode.InternalError, 'internal error while handling the request');
      opts.logger.error({ err, error_id: failure.envelope.error.error_id }, 'svc-http request failed');
      send(req, res, failure);
    });
  };
}

async function handle(opts: RequestHandlerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const cors = opts.cors.responseHeaders(req.headers);
  if (opts.isDraining()) {
    const msg = 'svc-http is shutting down; retry on another instance';
    return send(req, res, errorResponse(503, HttpErrorCode.ShuttingDown, msg, { 'retry-after': '1' }), cors, true);
  }
  if (opts.cors.isPreflight(method, req.headers)) {
    return send(req, res, { status: 204, headers: {}, body: Buffer.alloc(0) }, opts.cors.preflightHeaders(req.headers));
  }
  const { pathname, search } = splitUrl(req.url ?? '/');
  const found = opts.routes.lookup(method, pathname);
  if (found.kind === 'not_found') {
    return send(req, res, errorResponse(404, HttpErrorCode.NotFound, 'Not Found'), cors);
  }
  if (found.kind === 'method_not_allowed') {
    const allow = found.allow.join(', ');
    const msg = `method ${method} is not allowed on ${pathname}; allowed: ${allow}`;
    return send(req, res, errorResponse(405, HttpErrorCode.MethodNotAllowed, msg, { allow }), cors);
  }
  const slot = opts.limiter.tryAcquire();
  if (!slot) {
    const msg = `too many requests in flight (concurrency_request_limit ${opts.limiter.limit}); retry shortly`;
    return send(req, res, errorResponse(503, HttpErrorCode.Overloaded, msg, { 'retry-after': '1' }), cors);
  }
  await admitted(opts, { req, res, cors, method, pathname, search }, slot, found.match);
}

/** One request and what every answer to it needs. */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** CORS headers added to every response. */
  cors: Record<string, string>;
  method: string;
  pathname: string;
  search: string;
}

function reply(ex: Exchange, response: PlainResponse, closeConnection = false): void {
  send(ex.req, ex.res, response, ex.cors, closeConnection);
}

async function admitted(opts: RequestHandlerOptions, ex: Exchange, slot: Slot, match: RouteMatch): Promise<void> {
  const { req, res } = ex;
  // 'finish' = the response was handed to the socket; 'close' = the client went away first.
  const unwanted = new LazyAbort();
  res.once('finish', slot.release);
  res.once('close', () => {
    slot.release();
    if (!res.writableFinished) unwanted.abort();
  });
  const deadline = Date.now() + opts.defaultTimeoutMs;
  let phase: 'body' | 'invoke' = 'body';
  const timer = setTimeout(() => {
    if (phase === 'body') {
      const msg = `request body was not received within ${opts.defaultTimeoutMs} ms`;
      reply(ex, errorResponse(408, HttpErrorCode.RequestTimeout, msg), true);
      req.destroy();
    } else {
      const msg = `function '${match.target.functionId}' did not answer within ${opts.defaultTimeoutMs} ms`;
      reply(ex, errorResponse(504, HttpErrorCode.GatewayTimeout, msg));
    }
    slot.release();
    unwanted.abort();
  }, opts.defaultTimeoutMs);
  try {
    const streamed = opts.channels !== undefined && isStreamedBody(req);
    // No body declared (most GETs): nothing to wait for; node discards the empty stream once the response ends.
    const body = streamed ? STREAMED : hasBody(req) ? await receiveBody(opts, ex) : NO_BODY;
    if (body === undefined) return;
    phase = 'invoke';
    const payload = buildPayload({
      method: ex.method,
      apiPath: match.target.apiPath,
      search: ex.search,
      params: match.params,
      headers: req.headers,
      body: body.value,
    });
    const span = opts.invoker.requestSpan?.(ex.method, match.target.apiPath, ex.pathname, req.headers);
    if (span !== undefined) res.once('close', () => span.end(res.statusCode, !res.writableFinished));
    const answer = (outcome: DispatchOutcome): void => {
      if (res.headersSent || res.destroyed) return;
      reply(ex, toResponse(opts, match, ex.method, outcome));
    };
    if (opts.channels === undefined) {
      answer(await dispatch(opts.invoker, match.target, payload, deadline, unwanted, span));
      return;
    }
    await runWithChannels(
      {
        // every field spelled out: a spread of `ex` plus ten more keys cost ~7% of svc-http's CPU under load
        req,
        res,
        cors: ex.cors,
        port: opts.channels,
        invoker: opts.invoker,
        logger: opts.logger,
        target: match.target,
        payload,
        readBody: body.raw,
        deadline,
        unwanted,
        trace: span,
        onStreaming: () => clearTimeout(timer),
      },
      answer,
      (err) => {
        const failure = errorResponse(500, HttpErrorCode.InternalError, 'could not open the data channels');
        opts.logger.error({ err, error_id: failure.envelope.error.error_id }, 'svc-http: channel open failed');
        reply(ex, failure);
      },
    );
  } finally {
    clearTimeout(timer); // a streamed response has cleared it already (onStreaming): SSE outlives the deadline
  }
}

const NO_BODY = { value: null, raw: Buffer.alloc(0) };
const STREAMED = { value: null, raw: undefined };

/** Reads and parses the body; answers 413/400 itself and returns undefined when the request is over. */
async function receiveBody(
  opts: RequestHandlerOptions,
  ex: Exchange,
): Promise<{ value: unknown; raw: Buffer } | undefined> {
  const { req, res } = ex;
  const tooLarge = (): void => {
    const err = new BodyTooLargeError(opts.maxBodyBytes);
    // The rest of the body is not read: close the connection once the 413 is out.
    reply(ex, errorResponse(413, HttpErrorCode.PayloadTooLarge, err.message), true);
    res.once('finish', () => req.destroy());
  };
  if (declaredTooLarge(req, opts.maxBodyBytes)) {
    tooLarge();
    return undefined;
  }
  let raw: Buffer;
  try {
    raw = await readBody(req, opts.maxBodyBytes);
  } catch (err) {
    if (err instanceof BodyTooLargeError) tooLarge();
    else req.destroy();
    return undefined;
  }
  try {
    return { value: parseBody(raw, req.headers['content-type']), raw };
  } catch (err) {
    if (!(err instanceof InvalidJsonError)) throw err;
    reply(ex, errorResponse(400, HttpErrorCode.InvalidJson, err.message));
    return undefined;
  }
}

function toResponse(
  opts: RequestHandlerOptions,
  match: RouteMatch,
  method: string,
  outcome: DispatchOutcome,
): PlainResponse {
  const route = describeRoute(method, match.target.apiPath);
  switch (outcome.kind) {
    case 'result':
      try {
        return serializeResult(outcome.value);
      } catch (err) {
        const failure = errorResponse(500, HttpErrorCode.InvalidResponse, (err as Error).message);
        opts.logger.warn(
          { route, error_id: failure.envelope.error.error_id },
          `invalid handler response: ${(err as Error).message}`,
        );
        return failure;
      }
    case 'skipped':
      return errorResponse(422, HttpErrorCode.ConditionNotMet, 'Request condition not met', {}, { skipped: true });
    case 'timeout': {
      if (outcome.during === 'middleware') {
        const msg = `middleware did not answer within ${opts.defaultTimeoutMs} ms`;
        return errorResponse(504, HttpErrorCode.MiddlewareTimeout, msg);
      }
      const msg = `function '${match.target.functionId}' did not answer within ${opts.defaultTimeoutMs} ms`;
      return errorResponse(504, HttpErrorCode.GatewayTimeout, msg);
    }
    case 'error': {
      const failure = errorResponse(500, outcome.code, outcome.message);
      const fn = outcome.functionId;
      opts.logger.warn(
        { route, function_id: fn, code: outcome.code, error_id: failure.envelope.error.error_id, stack: outcome.stack },
        `${outcome.during} failed: ${outcome.message}`,
      );
      return failure;
    }
  }
}

/** Splits the request target into path and query without trusting it to be a valid URL. */
export function splitUrl(url: string): { pathname: string; search: string } {
  let target = url;
  if (!target.startsWith('/')) {
    // absolute-form (`GET http://host/path`): keep only the path.
    try {
      const parsed = new URL(target);
      target = parsed.pathname + parsed.search;
    } catch {
      target = '/';
    }
  }
  const q = target.indexOf('?');
  const hash = target.indexOf('#');
  const end = hash === -1 ? target.length : hash;
  return q === -1 || q > end
    ? { pathname: target.slice(0, end), search: '' }
    : { pathname: target.slice(0, q), search: target.slice(q + 1, end) };
}
