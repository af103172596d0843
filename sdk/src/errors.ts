/**
 * The one error type a caller sees for a failed invocation, whatever failed: the handler threw, the function does
 * not exist, the engine stopped the call, or the client-side deadline passed. `code` is stable and snake_case on the
 * wire (`function_not_found`, `invocation_stopped`, ...); the SDK's own codes are `TIMEOUT` (client-side deadline,
 * kept as on the wire of the original client), `UNKNOWN` (an error value that is not an ErrorBody) and
 * `client_shutdown` (the client was shut down while the call was pending).
 */
import type { ErrorBody } from './protocol.js';
import { ClientErrorCode, ErrorCode } from './error-codes.js';
import { mebibytes } from './text.js';

export interface InvocationErrorInit {
  code: string;
  message: string;
  function_id?: string;
  stacktrace?: string;
}

export class InvocationError extends Error {
  readonly code: string;
  /** The message without the `<code>: ` prefix, as it travels on the wire. */
  readonly detail: string;
  readonly function_id?: string;
  readonly stacktrace?: string;

  constructor(init: InvocationErrorInit) {
    super(`${init.code}: ${init.message}`);
    this.name = 'InvocationError';
    this.code = init.code;
    this.detail = init.message;
    if (init.function_id !== undefined) this.function_id = init.function_id;
    if (init.stacktrace !== undefined) this.stacktrace = init.stacktrace;
  }
}

/** A frame larger than the engine takes in one message (its `max_payload_bytes`, told at the upgrade); not sent. */
export class FrameTooLargeError extends Error {
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(
      `${mebibytes(bytes)} as a frame; the engine takes at most ${mebibytes(limit)} in one (its max_payload_bytes)`,
    );
    this.name = 'FrameTooLargeError';
  }
}

/** True when `value` has the wire's `{ code, message, stacktrace? }` shape. */
export function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.code === 'string' && typeof v.message === 'string';
}

/** Wraps whatever came back in `invocationresult.error` (validated or not) into an InvocationError. */
export function toInvocationError(error: unknown, functionId: string): InvocationError {
  if (isErrorBody(error)) {
    return new InvocationError({
      code: error.code,
      message: error.message,
      function_id: functionId,
      ...(typeof error.stacktrace === 'string' ? { stacktrace: error.stacktrace } : {}),
    });
  }
  return new InvocationError({ code: ClientErrorCode.Unknown, message: safeString(error), function_id: functionId });
}

/**
 * The ErrorBody sent back for a handler that threw `thrown`. An `InvocationError` keeps its own code (that is how
 * a handler answers `VALUE_TOO_LARGE`, `NOT_FOUND`, ...); anything else thrown is `invocation_failed`.
 */
export function handlerErrorBody(thrown: unknown): ErrorBody {
  if (thrown instanceof InvocationError) {
    return thrown.stack !== undefined
      ? { code: thrown.code, message: thrown.detail, stacktrace: thrown.stack }
      : { code: thrown.code, message: thrown.detail };
  }
  if (thrown instanceof Error) {
    return thrown.stack !== undefined
      ? { code: ErrorCode.InvocationFailed, message: thrown.message, stacktrace: thrown.stack }
      : { code: ErrorCode.InvocationFailed, message: thrown.message };
  }
  return { code: ErrorCode.InvocationFailed, message: safeString(thrown) };
}

function safeString(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
