/**
 * The request → the function payload (docs/protocol.md §5): lower-case headers with string values, `query_params`
 * (last value of a repeated key wins), `path_params`, `path` = the api_path as registered (not the concrete URL),
 * `method`, `body` and `trigger: {type, path, method}`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { StreamChannelRef } from '@svc/sdk';

export interface HttpPayload {
  query_params: Record<string, string>;
  path_params: Record<string, string>;
  headers: Record<string, string>;
  path: string;
  method: string;
  body: unknown;
  trigger: { type: 'http'; path: string; method: string };
  /** The request's data channels (README.md, "Streaming (data channels)"), when svc-http opened them. */
  request_body?: StreamChannelRef;
  response?: StreamChannelRef;
}

export interface PayloadInput {
  method: string;
  apiPath: string;
  search: string;
  params: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** The payload, with the refs of the request's channels when it has them (one object, built once). */
export function buildPayload(
  input: PayloadInput,
  requestBody?: StreamChannelRef,
  response?: StreamChannelRef,
): HttpPayload {
  const { apiPath, method } = input;
  const query_params = input.search === '' ? {} : Object.fromEntries(new URLSearchParams(input.search));
  const headers = flattenHeaders(input.headers);
  const trigger = { type: 'http' as const, path: apiPath, method };
  if (requestBody === undefined || response === undefined) {
    return { query_params, path_params: input.params, headers, path: apiPath, method, body: input.body, trigger };
  }
  return {
    query_params,
    path_params: input.params,
    headers,
    path: apiPath,
    method,
    body: input.body,
    trigger,
    request_body: requestBody,
    response,
  };
}

/**
 * Node already lower-cases names; repeated headers (arrays: only `set-cookie` in node) are joined with ", ".
 * Node's own object is used as it is when every value is a string (nearly always): it is serialised at once,
 * never kept, so no copy is needed.
 */
export function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  for (const name in headers) {
    if (typeof headers[name] !== 'string') return copyHeaders(headers);
  }
  return headers as Record<string, string>;
}

function copyHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    out[name] = typeof value === 'string' ? value : value.join(', ');
  }
  return out;
}
