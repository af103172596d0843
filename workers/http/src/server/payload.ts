/**
 * The request → the function payload (docs/protocol.md §5): lower-case headers with string values, `query_params`
 * (last value of a repeated key wins), `path_params`, `path` = the api_path as registered (not the concrete URL),
 * `method`, `body` and `trigger: {type, path, method}`.
 */
import type { IncomingHttpHeaders } from 'node:http';

export interface HttpPayload {
  query_params: Record<string, string>;
  path_params: Record<string, string>;
  headers: Record<string, string>;
  path: string;
  method: string;
  body: unknown;
  trigger: { type: 'http'; path: string; method: string };
}

export interface PayloadInput {
  method: string;
  apiPath: string;
  search: string;
  params: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export function buildPayload(input: PayloadInput): HttpPayload {
  return {
    query_params: input.search === '' ? {} : Object.fromEntries(new URLSearchParams(input.search)),
    path_params: input.params,
    headers: flattenHeaders(input.headers),
    path: input.apiPath,
    method: input.method,
    body: input.body,
    trigger: { type: 'http', path: input.apiPath, method: input.method },
  };
}

/** Node already lower-cases names; repeated headers (arrays) are joined with ", ". */
export function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    out[name] = typeof value === 'string' ? value : value.join(', ');
  }
  return out;
}
