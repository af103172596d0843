/**
 * A handler's result → the HTTP response, exactly as docs/protocol.md §5 says:
 * - a non-object result (undefined, a string, an array, …) is 200 with `{}`;
 * - `status_code` defaults to 200; `headers` is an object of values or an array of `"Name: value"` strings;
 * - `body` defaults to `{}` when the key is missing, and is serialised as:
 *   user `content-type` + string body → the raw string; user `content-type` + null body → empty;
 *   a non-JSON user `content-type` + a non-string body → its JSON text; otherwise the JSON text, with
 *   `content-type: application/json` added when the user set none.
 * A result that cannot be sent (bad status, bad header) is a 500 `invalid_response` naming the problem.
 */
import { HttpErrorCode } from '../error-codes.js';
import type { PlainResponse } from './errors.js';

export class InvalidResponseError extends Error {
  readonly code = HttpErrorCode.InvalidResponse;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_HEADER_VALUE = /[\r\n\0]/;

export function serializeResult(result: unknown): PlainResponse {
  if (!isPlainObject(result)) return jsonResponse(200, undefined, {});
  const status = parseStatus(result['status_code']);
  const rawHeaders = result['headers'];
  const body = 'body' in result && result['body'] !== undefined ? result['body'] : {};
  // The usual result, `{body}` or `{status_code, body}`: no header to parse.
  if (rawHeaders === undefined || rawHeaders === null) return jsonResponse(status, undefined, body);
  const headers = parseHeaders(rawHeaders);
  const userType = headers['content-type'] as string | undefined;
  if (userType !== undefined) {
    if (typeof body === 'string') return { status, headers, body };
    if (body === null) return { status, headers, body: '' };
    return { status, headers, body: toJson(body) };
  }
  return jsonResponse(status, headers, body);
}

function jsonResponse(
  status: number,
  headers: Record<string, string | string[]> | undefined,
  body: unknown,
): PlainResponse {
  const text = toJson(body);
  if (headers === undefined) return { status, headers: { 'content-type': 'application/json' }, body: text };
  headers['content-type'] = 'application/json';
  return { status, headers, body: text };
}

function toJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (err) {
    throw new InvalidResponseError(`response body cannot be serialised as JSON: ${(err as Error).message}`);
  }
}

function parseStatus(value: unknown): number {
  if (value === undefined || value === null) return 200;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 200 || value > 599) {
    throw new InvalidResponseError(`status_code must be an integer from 200 to 599, got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * Header names are lower-cased so a user `Content-Type` is recognised; later duplicates are joined with ", ",
 * except `set-cookie`, whose values must stay separate header lines.
 */
export function parseHeaders(value: unknown): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (value === undefined || value === null) return out;
  const pairs: Array<[string, unknown]> = [];
  if (Array.isArray(value)) {
    for (const line of value) {
      if (typeof line !== 'string' || !line.includes(':')) {
        throw new InvalidResponseError(
          `headers array entries must be "Name: value" strings, got ${JSON.stringify(line)}`,
        );
      }
      const at = line.indexOf(':');
      pairs.push([line.slice(0, at).trim(), line.slice(at + 1).trim()]);
    }
  } else if (isPlainObject(value)) {
    pairs.push(...Object.entries(value));
  } else {
    throw new InvalidResponseError('headers must be an object of string values or an array of "Name: value" strings');
  }
  for (const [name, raw] of pairs) {
    const text = headerValue(name, raw);
    const key = name.toLowerCase();
    const prev = out[key];
    if (key === 'set-cookie') out[key] = prev === undefined ? [text] : [...(prev as string[]), text];
    else out[key] = prev === undefined ? text : `${prev as string}, ${text}`;
  }
  return out;
}

function headerValue(name: string, raw: unknown): string {
  if (!HEADER_NAME.test(name)) throw new InvalidResponseError(`header name ${JSON.stringify(name)} is not valid`);
  if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
    throw new InvalidResponseError(`header '${name}' must have a string value`);
  }
  const text = String(raw);
  if (BAD_HEADER_VALUE.test(text)) throw new InvalidResponseError(`header '${name}' contains CR, LF or NUL`);
  return text;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
