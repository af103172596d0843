/**
 * One HTTP request from arrival to response: preflight, routing (404/405), admission (503), body (413/400),
 * dispatch to the bound function with the request deadline (504), and the result's serialisation.
 *
 * A request holds a concurrency slot from admission until its response is over (the response's 'close': sent, or
 * the client went away) or its deadline passed; the slot goes back exactly once whichever comes first. The
 * deadline and a client abort also cancel the invocation (by its id; an invoker without `cancel` gets an
 * AbortSignal instead). Deadlines share one timer (deadline-queue.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';
import type { ConcurrencyLimiter } from './concurrency-limiter.js';
import type { CorsPolicy } from './cors.js';
import { CallOptions, dispatch, failedOutcome, type DispatchOutcome, type Invoker } from './dispatch.js';
import { HttpErrorCode } from '../error-codes.js';
import { errorResponse, type PlainResponse } from './errors.js';
import { buildPayload, payloadText, type PayloadInput } from './payload.js';
import { runWithChannels, type ChannelExchange } from './channel-exchange.js';
import type { ChannelPort, RequestChannels } from './request-channels.js';
import {
  BodyTooLargeError,
  declaredTooLarge,
  hasBody,
  InvalidJsonError,
  isStreamedBody,
  parseBody,
  readBody,
} from './request-body.js';
import type { RequestSpan } from './request-span.js';
import { toResponse } from './outcome-response.js';
import { type RouteMatch, type RouteTable } from './route-table.js';
import { LazyAbort } from './lazy-abort.js';
import { send } from './send.js';
import { DeadlineQueue, type Due } from './deadline-queue.js';
import { ClientErrorCode, InvocationError, newUuid, type StreamChannelRef } from '@svc/sdk';

export interface RequestHandlerOptions {
  routes: RouteTable;
  limiter: ConcurrencyLimiter;
  cors: CorsPolicy;
  invoker: Invoker;
  logger: Logger;
  defaultTimeoutMs: number;
  maxBodyBytes: number;
  /**
   * Opens each request's `request_body` / `response` data channels (README.md, "Streaming (data channels)"). Without it
   * the payload carries no channel refs and every body is read under `maxBodyBytes`.
   */
  channels?: ChannelPort;
  /** True once shutdown began: new requests get 503 and the connection is closed. */
  isDraining(): boolean;
}

export function createRequestHandler(opts: RequestHandlerOptions) {
  const deadlines = new DeadlineQueue();
  return (req: IncomingMessage, res: ServerResponse): void => {
    try {
      handle(opts, deadlines, req, res);
    } catch (err) {
      failed(opts, req, res, err);
    }
  };
}

function failed(opts: RequestHandlerOptions, req: IncomingMessage, res: ServerResponse, err: unknown): void {
  const failure = errorResponse(500, HttpErrorCode.InternalError, 'internal error while handling the request');
  opts.logger.error({ err, error_id: failure.envelope.error.error_id }, 'svc-http request failed');
  send(req, res, failure);
}

/** Synchronous up to the call: a request without a body reaches the engine in the turn it arrived in. */
function handle(
  opts: RequestHandlerOptions,
  deadlines: DeadlineQueue,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const method = (req.method ?? 'GET').toUpperCase();
  const cors = opts.cors.responseHeaders(req.headers);
  if (opts.isDraining()) {
    const msg = 'svc-http is shutting down; retry on another instance';
    return send(req, res, errorResponse(503, HttpErrorCode.ShuttingDown, msg, { 'retry-after': '1' }), cors, true);
  }
  if (opts.cors.isPreflight(method, req.headers)) {
    return send(req, res, { status: 204, headers: {}, body: '' }, opts.cors.preflightHeaders(req.headers));
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
  if (!opts.limiter.tryEnter()) {
    const msg = `too many requests in flight (concurrency_request_limit ${opts.limiter.limit}); retry shortly`;
    return send(req, res, errorResponse(503, HttpErrorCode.Overloaded, msg, { 'retry-after': '1' }), cors);
  }
  new Exchange(opts, deadlines, req, res, cors, method, pathname, search, found.match).start();
}

const BODY = 0;
const INVOKE = 1;
const OVER = 2;

const NO_BODY = Buffer.alloc(0);

/**
 * One admitted request, from its concurrency slot to its response: one object with methods instead of a set of
 * closures and promises per request. It is also the request's `LazyAbort` ("no longer wanted": the client went
 * away or the deadline passed), which cancels the call in flight by its invocation id.
 */
class Exchange extends LazyAbort implements ChannelExchange, Due {
  readonly logger: Logger;
  readonly deadline: number;
  prevDue: Due | undefined = undefined;
  nextDue: Due | undefined = undefined;
  queued = false;
  private phase = BODY;
  /** The concurrency slot is held (it goes back once: response over, deadline, or client gone). */
  private holding = true;
  private closed = false;
  private body: unknown = null;
  private channels: RequestChannels | undefined;
  private span: RequestSpan | undefined;
  /** The call in flight that the invoker can cancel by id. */
  private invocationId: string | undefined;
  /** No longer wanted (client gone, deadline passed): a call made from now on is cancelled at once. */
  private unwanted = false;

  constructor(
    private readonly opts: RequestHandlerOptions,
    private readonly deadlines: DeadlineQueue,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    /** CORS headers added to every response. */
    readonly cors: Record<string, string>,
    private readonly method: string,
    private readonly pathname: string,
    private readonly search: string,
    private readonly match: RouteMatch,
  ) {
    super();
    this.logger = opts.logger;
    this.deadline = Date.now() + opts.defaultTimeoutMs;
    deadlines.add(this);
  }

  start(): void {
    const { req, opts } = this;
    // 'close' comes after the response went out, or when the client went away first (not finished then).
    this.res.on('close', () => this.onClose());
    if (opts.channels !== undefined && isStreamedBody(req)) return this.invoke(null, undefined);
    // No body declared (most GETs): nothing to wait for; node discards the empty stream once the response ends.
    if (!hasBody(req)) return this.invoke(null, NO_BODY);
    receiveBody(opts, this)
      .then((body) => {
        if (body === undefined) this.finish();
        else this.invoke(body.value, body.raw);
      })
      .catch((err: unknown) => this.fail(err));
  }

  private onClose(): void {
    this.closed = true;
    this.leave();
    this.channels?.release();
    const { res } = this;
    this.span?.end(res.statusCode, !res.writableFinished);
    if (!res.writableFinished) this.abort();
  }

  private leave(): void {
    if (!this.holding) return;
    this.holding = false;
    this.opts.limiter.leave();
  }

  override abort(): void {
    this.unwanted = true;
    super.abort();
    const id = this.invocationId;
    if (id === undefined) return;
    this.invocationId = undefined;
    this.opts.invoker.cancel?.(id);
  }

  /** The deadline passed: 408 while the body is still arriving, 504 after. */
  expire(): void {
    if (this.phase === OVER) return;
    const { opts } = this;
    if (this.phase === BODY) {
      const msg = `request body was not received within ${opts.defaultTimeoutMs} ms`;
      this.reply(errorResponse(408, HttpErrorCode.RequestTimeout, msg), true);
      this.req.destroy();
    } else {
      const msg = `function '${this.match.target.functionId}' did not answer within ${opts.defaultTimeoutMs} ms`;
      this.reply(errorResponse(504, HttpErrorCode.GatewayTimeout, msg));
    }
    this.leave();
    this.abort();
  }

  /** The response is decided (or the request is over): the deadline no longer applies. */
  private finish(): void {
    if (this.phase === OVER) return;
    this.phase = OVER;
    this.deadlines.remove(this);
  }

  reply(response: PlainResponse, closeConnection = false): void {
    send(this.req, this.res, response, this.cors, closeConnection);
  }

  private invoke(body: unknown, raw: Buffer | undefined): void {
    this.phase = INVOKE;
    this.body = body;
    const { opts, req, res } = this;
    if (opts.invoker.requestSpan !== undefined) {
      this.span = opts.invoker.requestSpan(this.method, this.match.target.apiPath, this.pathname, req.headers);
      if (this.closed) this.span.end(res.statusCode, !res.writableFinished);
    }
    if (opts.channels !== undefined) {
      runWithChannels(this, opts.channels, raw);
      return;
    }
    this.call(undefined, undefined, (outcome) => {
      try {
        this.answer(outcome);
        this.done();
      } catch (err) {
        this.fail(err);
      }
    });
  }

  private payloadInput(): PayloadInput {
    return {
      method: this.method,
      apiPath: this.match.target.apiPath,
      search: this.search,
      params: this.match.params,
      headers: this.req.headers,
      body: this.body,
    };
  }

  /**
   * Runs the route's functions (see dispatch.ts) on the request's payload; a plain route is one call, without async
   * frames, whose payload goes as JSON text (nothing here reads it).
   */
  private call(
    requestBody: StreamChannelRef | undefined,
    response: StreamChannelRef | undefined,
    onOutcome: (outcome: DispatchOutcome) => void,
  ): void {
    const { target } = this.match;
    const { invoker } = this.opts;
    if (target.middlewareFunctionIds.length > 0 || target.conditionFunctionId || invoker.cancel === undefined) {
      const payload = buildPayload(this.payloadInput(), requestBody, response);
      dispatch(invoker, target, payload, this.deadline, this, this.span).then(onOutcome, (err: unknown) =>
        this.fail(err),
      );
      return;
    }
    const { functionId } = target;
    const timeoutMs = this.deadline - Date.now();
    if (timeoutMs <= 0) return onOutcome({ kind: 'timeout', during: 'handler' });
    const options = new CallOptions(timeoutMs, target.metadata, this, this.span);
    const invocationId = newUuid();
    options.invocationId = invocationId;
    let answer: Promise<unknown>;
    try {
      answer = invoker.invoke(functionId, payloadText(this.payloadInput(), requestBody, response), options);
    } catch (err) {
      return onOutcome(failedOutcome(err, 'handler', functionId));
    }
    this.invocationId = invocationId;
    if (this.unwanted) this.abort(); // no longer wanted already
    answer.then(
      (value) => {
        this.invocationId = undefined;
        onOutcome({ kind: 'result', value });
      },
      (err: unknown) => {
        this.invocationId = undefined;
        onOutcome(failedOutcome(err, 'handler', functionId));
      },
    );
  }

  // ChannelExchange

  adoptChannels(channels: RequestChannels): boolean {
    if (this.closed || this.res.destroyed) {
      channels.release();
      return false;
    }
    this.channels = channels;
    return true;
  }

  dispatch(
    requestBody: StreamChannelRef,
    response: StreamChannelRef,
    onOutcome: (outcome: DispatchOutcome) => void,
  ): void {
    this.call(requestBody, response, onOutcome);
  }

  answer(outcome: DispatchOutcome): void {
    const { res } = this;
    if (res.headersSent || res.destroyed) return;
    this.reply(toResponse(this.opts, this.match, this.method, outcome));
  }

  onStreaming(): void {
    this.finish(); // a streamed response outlives the deadline (SSE)
  }

  done(): void {
    this.finish();
  }

  fail(err: unknown): void {
    this.finish();
    failed(this.opts, this.req, this.res, err);
  }

  failOpen(err: unknown): void {
    this.finish();
    if (err instanceof InvocationError && err.code === ClientErrorCode.PayloadTooLarge) {
      // the body, handed to the engine with its channel, is larger than the engine takes in one message
      this.reply(errorResponse(413, err.code, `request body too large for the engine: ${err.detail}`));
      return;
    }
    const failure = errorResponse(500, HttpErrorCode.InternalError, 'could not open the data channels');
    this.logger.error({ err, error_id: failure.envelope.error.error_id }, 'svc-http: channel open failed');
    this.reply(failure);
  }
}

/** Reads and parses the body; answers 413/400 itself and returns undefined when the request is over. */
async function receiveBody(
  opts: RequestHandlerOptions,
  ex: Exchange,
): Promise<{ value: unknown; raw: Buffer } | undefined> {
  const { req, res } = ex;
  const tooLarge = (): void => {
    const err = new BodyTooLargeError(opts.maxBodyBytes);
    // The rest of the body is not read: close the connection once the 413 is out.
    ex.reply(errorResponse(413, HttpErrorCode.PayloadTooLarge, err.message), true);
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
    ex.reply(errorResponse(400, HttpErrorCode.InvalidJson, err.message));
    return undefined;
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
