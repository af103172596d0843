/**
 * The console backend's own error codes (an error of a function it calls keeps that function's code). docs/errors.md
 * lists each one; test/docs/error-codes.test.ts fails when the two disagree.
 */
export const ConsoleErrorCode = Object.freeze({
  /** Not connected to the engine (503), or the engine's REST port does not answer the proxy (502). */
  EngineUnreachable: 'engine_unreachable',
  /** A `_console/*` route got bad input (not JSON, a missing or empty field). */
  BadRequest: 'console_bad_request',
  /** No console route or endpoint has that method and path. */
  NotFound: 'console_not_found',
  /** An unexpected failure inside the console backend. */
  InternalError: 'console_internal_error',
} as const);
