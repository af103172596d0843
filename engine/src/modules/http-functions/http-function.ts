/**
 * The handler behind one HTTP-invoked function: the invocation's payload becomes a JSON request to the
 * registered URL (method, headers, auth, `timeout_ms`), and the JSON answer becomes the result.
 *
 * Request headers: `content-type: application/json`, `x-svc-function-path` (the function id),
 * `x-svc-invocation-id`, `x-svc-timestamp` (unix seconds), `x-svc-trace-id` when the call carries a trace, the
 * registered `headers`, then the auth header. A 2xx answer with a JSON body is the result (an empty body means
 * none); a 2xx with another body is `invalid_response`; any other status is `http_request_failed` naming it.
 */
import { InvocationError, type HandlerContext, type HttpInvocationRef } from '@svc/sdk/core';
import type { Dispatcher } from 'undici';
import { authHeaders, credentialHeaders, TIMESTAMP_HEADER, type Env } from './auth.js';
import { OutboundError, sendOutbound, type OutboundLimits } from './outbound-request.js';
import { PolicyError, type UrlPolicy } from './security/url-policy.js';
import { ModuleErrorCode } from '../../error-codes.js';

export interface HttpFunctionDeps {
  policy: UrlPolicy;
  dispatcher: Dispatcher;
  limits: OutboundLimits;
  env: Env;
  defaultTimeoutMs: number;
}

const BODYLESS = new Set(['GET', 'HEAD']);

export function httpFunctionHandler(functionId: string, invocation: () => HttpInvocationRef, deps: HttpFunctionDeps) {
  return async (payload: unknown, context: HandlerContext): Promise<unknown> => {
    const ref = invocation();
    const method = (ref.method ?? 'POST').toUpperCase();
    const body = BODYLESS.has(method) ? undefined : Buffer.from(JSON.stringify(outboundPayload(payload)));
    const timestamp = String(Math.floor(Date.now() / 1000));
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      'x-svc-function-path': functionId,
      [TIMESTAMP_HEADER]: timestamp,
      ...(context.invocationId ? { 'x-svc-invocation-id': context.invocationId } : {}),
      ...(context.traceparent ? { 'x-svc-trace-id': context.traceparent.split('-')[1] ?? context.traceparent } : {}),
      ...lowerKeys(ref.headers ?? {}),
    };
    try {
      if (ref.auth) Object.assign(headers, authHeaders(ref.auth, deps.env, timestamp, body ?? Buffer.alloc(0)));
      const res = await sendOutbound(deps.policy, deps.dispatcher, deps.limits, {
        url: ref.url,
        method,
        headers,
        body,
        credentialHeaders: credentialHeaders(ref.auth),
        timeoutMs: ref.timeout_ms ?? deps.defaultTimeoutMs,
        signal: context.signal,
      });
      return toResult(method, ref.url, res.status, res.body);
    } catch (err) {
      throw asInvocationError(err, method, ref.url);
    }
  };
}

/** The engine's routing key `_caller_worker_id` is internal: it is not sent to a third party. */
function outboundPayload(payload: unknown): unknown {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload) || !('_caller_worker_id' in payload)) {
    return payload ?? null;
  }
  const { _caller_worker_id: _dropped, ...rest } = payload as Record<string, unknown>;
  return rest;
}

function toResult(method: string, url: string, status: number, body: Buffer): unknown {
  if (status < 200 || status > 299) {
    const snippet = body.subarray(0, 200).toString('utf8');
    throw new InvocationError({
      code: ModuleErrorCode.HttpRequestFailed,
      message: `${method} ${url} answered ${status}${snippet ? `: ${snippet}` : ''}`,
    });
  }
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw new InvocationError({
      code: ModuleErrorCode.InvalidResponse,
      message: `${method} ${url} answered ${status} with a body that is not JSON`,
    });
  }
}

function asInvocationError(err: unknown, method: string, url: string): InvocationError {
  if (err instanceof InvocationError) return err;
  if (err instanceof PolicyError || err instanceof OutboundError) {
    return new InvocationError({ code: err.code, message: err.message });
  }
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof PolicyError) return new InvocationError({ code: cause.code, message: cause.message });
  const code = (err as { code?: unknown }).code;
  if (code === ModuleErrorCode.SecretNotSet) return new InvocationError({ code, message: (err as Error).message });
  return new InvocationError({
    code: ModuleErrorCode.HttpRequestFailed,
    message: `${method} ${url} failed: ${(err as Error).message}${typeof code === 'string' ? ` (${code})` : ''}`,
  });
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
