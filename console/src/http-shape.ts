/**
 * The request a `_console/*` function receives (the payload svc-http sends an http-triggered function) and the
 * response it returns (`{status_code, headers, body}`), plus the mapping of engine errors to HTTP statuses:
 * 503 the engine is not reachable, 504 a timeout, 404 a function that is not registered, 502 a remote error.
 */
import { InvocationError } from '@svc/sdk';
import { ConsoleErrorCode } from './error-codes.js';

export interface ConsoleRequest {
  method: string;
  path_params: Record<string, string>;
  query_params: Record<string, string>;
  body: unknown;
}

export interface ConsoleResponse {
  status_code: number;
  headers: Record<string, string>;
  body: unknown;
}

export interface ErrorView {
  code: string;
  message: string;
  function_id?: string;
  stacktrace?: string;
}

export function ok(body: unknown, status = 200): ConsoleResponse {
  return { status_code: status, headers: { 'content-type': 'application/json' }, body: body ?? null };
}

export function fail(status: number, error: ErrorView): ConsoleResponse {
  return { status_code: status, headers: { 'content-type': 'application/json' }, body: { error } };
}

/** A request's fields, read defensively: svc-http and the console server both build it, a third party may too. */
export function asConsoleRequest(payload: unknown): ConsoleRequest {
  const o = isRecord(payload) ? payload : {};
  return {
    method: typeof o.method === 'string' ? o.method.toUpperCase() : 'GET',
    path_params: stringMap(o.path_params),
    query_params: stringMap(o.query_params),
    body: o.body ?? null,
  };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringMap(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  return out;
}

const UNREACHABLE = new Set([
  'connection_closed',
  'client_shutdown',
  'channel_send_failed',
  ConsoleErrorCode.EngineUnreachable,
]);
const TIMEOUTS = new Set(['TIMEOUT', 'invocation_timeout']);

/** The error view of anything thrown by a call through the engine, with the HTTP status the console answers. */
export function errorResponse(err: unknown): ConsoleResponse {
  if (err instanceof ConsoleInputError) return fail(400, { code: ConsoleErrorCode.BadRequest, message: err.message });
  if (!(err instanceof InvocationError)) {
    return fail(500, {
      code: ConsoleErrorCode.InternalError,
      message: err instanceof Error ? err.message : String(err),
    });
  }
  const view: ErrorView = { code: err.code, message: err.detail };
  if (err.function_id !== undefined) view.function_id = err.function_id;
  if (err.stacktrace !== undefined) view.stacktrace = err.stacktrace;
  if (UNREACHABLE.has(err.code)) return fail(503, view);
  if (TIMEOUTS.has(err.code)) return fail(504, view);
  if (err.code === 'function_not_found') return fail(404, view);
  return fail(502, view);
}

/** Bad input to a console route (a missing field, a body that is not JSON): answered with 400. */
export class ConsoleInputError extends Error {
  override readonly name = 'ConsoleInputError';
}

export function requireString(o: Record<string, unknown>, field: string, where: string): string {
  const value = o[field];
  if (typeof value !== 'string' || value === '') {
    throw new ConsoleInputError(`${where}: "${field}" must be a non-empty string`);
  }
  return value;
}

export function bodyObject(req: ConsoleRequest, where: string): Record<string, unknown> {
  if (req.body === null || req.body === undefined) return {};
  if (!isRecord(req.body)) throw new ConsoleInputError(`${where}: the body must be a JSON object`);
  return req.body;
}
