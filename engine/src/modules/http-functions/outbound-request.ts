/**
 * One outbound request under the policy: every hop's URL is checked (url-policy.ts) before it is requested, the
 * connect step checks the resolved address (guarded-connector.ts), redirects are followed by hand up to
 * `maxRedirects`, credentials are dropped when a redirect leaves the origin, and the whole exchange is bounded
 * in time (`timeoutMs`, all hops together) and in response size (`maxResponseBytes`, the socket is destroyed
 * at the cap rather than buffered).
 */
import type { Dispatcher } from 'undici';
import { request } from 'undici';
import type { UrlPolicy } from './security/url-policy.js';
import { ModuleErrorCode } from '../../error-codes.js';

export class OutboundError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface OutboundRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  /** Header names removed when a redirect goes to another origin. */
  credentialHeaders: Set<string>;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

export interface OutboundLimits {
  maxRedirects: number;
  maxResponseBytes: number;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  url: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export async function sendOutbound(
  policy: UrlPolicy,
  dispatcher: Dispatcher,
  limits: OutboundLimits,
  req: OutboundRequest,
): Promise<OutboundResponse> {
  const timeout = AbortSignal.timeout(req.timeoutMs);
  const signal = req.signal ? AbortSignal.any([timeout, req.signal]) : timeout;
  let url = policy.check(req.url);
  let { method, body } = req;
  const headers = { ...req.headers };
  try {
    for (let hop = 0; ; hop++) {
      const res = await request(url, { method: method, headers, body, dispatcher, signal });
      const location = res.headers.location;
      if (!REDIRECTS.has(res.statusCode) || typeof location !== 'string') {
        return { status: res.statusCode, headers: res.headers, body: await readCapped(res, limits), url: url.href };
      }
      discard(res);
      if (hop >= limits.maxRedirects) {
        throw new OutboundError(
          ModuleErrorCode.TooManyRedirects,
          `more than ${limits.maxRedirects} redirects from ${req.url}`,
        );
      }
      const next = policy.check(new URL(location, url));
      if (next.origin !== url.origin) for (const name of req.credentialHeaders) delete headers[name];
      if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        delete headers['content-type'];
      }
      url = next;
    }
  } catch (err) {
    if (timeout.aborted)
      throw new OutboundError(
        ModuleErrorCode.HttpTimeout,
        `${req.method} ${req.url} took longer than ${req.timeoutMs} ms`,
      );
    if (req.signal?.aborted) throw new OutboundError('invocation_cancelled', `${req.method} ${req.url} was cancelled`);
    throw err;
  }
}

async function readCapped(res: Dispatcher.ResponseData, limits: OutboundLimits): Promise<Buffer> {
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxResponseBytes) {
    discard(res);
    throw tooLarge(limits);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += (chunk as Buffer).length;
    if (size > limits.maxResponseBytes) {
      discard(res);
      throw tooLarge(limits);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

function tooLarge(limits: OutboundLimits): OutboundError {
  return new OutboundError(
    ModuleErrorCode.ResponseTooLarge,
    `response body is larger than ${limits.maxResponseBytes} bytes`,
  );
}

/** Drops a response body and its socket; the abort error this raises on the body stream is expected. */
function discard(res: Dispatcher.ResponseData): void {
  res.body.on('error', () => {});
  res.body.destroy();
}
