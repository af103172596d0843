/**
 * The error codes the engine core produces, with helpers to build the wire's `ErrorBody`.
 * docs/errors.md lists every code; engine/test/error-docs.test.ts fails when one is missing there.
 */
import type { ErrorBody } from '@svc/sdk';

export const EngineErrorCode = {
  /** No live worker provides the function. */
  FunctionNotFound: 'function_not_found',
  /** The worker executing (or calling) the invocation disconnected before it finished. */
  InvocationStopped: 'invocation_stopped',
  /** No result arrived within the engine's timeout for this invocation. */
  InvocationTimeout: 'invocation_timeout',
  /** The executor's connection could not take the frame (closed or over its outbound buffer bound). */
  ChannelSendFailed: 'channel_send_failed',
  /** `TriggerAction.Enqueue` failed: no `engine::queue::enqueue` provider, or the provider refused. */
  EnqueueError: 'enqueue_error',
  /** A frame could not be decoded (sent back in an `error` frame; the connection stays open). */
  InvalidFrame: 'invalid_frame',
  /** A `registerfunction` with `invocation` arrived but no HTTP-functions module is loaded, or it refused. */
  HttpFunctionsUnavailable: 'http_functions_unavailable',
  /** A result could not be encoded for the caller (a value JSON cannot carry, from an in-process executor). */
  SerializationError: 'serialization_error',
  /** An `invocationresult` named an invocation this worker is not executing (late, or never sent). */
  UnknownInvocation: 'unknown_invocation',
} as const;

export type EngineErrorCodeValue = (typeof EngineErrorCode)[keyof typeof EngineErrorCode];

export function errorBody(code: string, message: string): ErrorBody {
  return { code, message };
}

export const stoppedError = (): ErrorBody => errorBody(EngineErrorCode.InvocationStopped, 'Invocation stopped');

export const notFoundError = (functionId: string): ErrorBody =>
  errorBody(EngineErrorCode.FunctionNotFound, `Function ${functionId} not found`);

export const timeoutError = (functionId: string, ms: number): ErrorBody =>
  errorBody(
    EngineErrorCode.InvocationTimeout,
    `Function ${functionId} did not answer within ${ms} ms; the invocation was cancelled ` +
      '(raise timeout_ms on the call, or the engine invocation timeout, if it legitimately takes longer)',
  );
