/**
 * The error codes the engine core produces, with helpers to build the wire's `ErrorBody`.
 * docs/errors.md lists every code; test/docs/error-codes.test.ts fails when one is missing there.
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
  /** A call's `action` has no handler installed (no engine module handles it). */
  ActionUnsupported: 'action_unsupported',
  /** The handler of a call's `action` threw. */
  ActionFailed: 'action_failed',
  /** A dispatch middleware threw or rejected; the call was not routed. */
  MiddlewareFailed: 'middleware_failed',
  /** A frame could not be decoded (sent back in an `error` frame; the connection stays open). */
  InvalidFrame: 'invalid_frame',
  /** A result could not be encoded for the caller (a value JSON cannot carry, from an in-process executor). */
  SerializationError: 'serialization_error',
  /** The executor's `invocationresult` could not be decoded; the call fails at once instead of at its deadline. */
  InvalidResult: 'invalid_result',
  /** An `invocationresult` named an invocation this worker is not executing (late, or never sent). */
  UnknownInvocation: 'unknown_invocation',
  /** A registration's id, description, schemas, config or metadata take more than `max_registration_bytes`. */
  RegistrationTooLarge: 'registration_too_large',
  /** The worker already holds `max_registrations_per_worker` functions, triggers and trigger types. */
  RegistrationLimit: 'registration_limit',
  /** The executor already has `max_in_flight_per_worker` calls in flight; the call was not sent. */
  WorkerOverloaded: 'worker_overloaded',
  /** The engine already has `max_in_flight` calls in flight; the call was not sent. */
  EngineOverloaded: 'engine_overloaded',
  /** The caller already waits on `max_in_flight_per_caller` calls; the call was not sent. */
  CallerOverloaded: 'caller_overloaded',
  /** How an invocation ends for lifecycle observers when its caller left (never sent; the executor is told). */
  CallerDisconnected: 'caller_disconnected',
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

export const overloadedError = (functionId: string, workerId: string, max: number): ErrorBody =>
  errorBody(
    EngineErrorCode.WorkerOverloaded,
    `the worker ${workerId} providing ${functionId} has ${max} calls in flight (max_in_flight_per_worker); ` +
      'this call was not sent: retry later, add replicas, or raise max_in_flight_per_worker',
  );

export const engineOverloadedError = (functionId: string, max: number): ErrorBody =>
  errorBody(
    EngineErrorCode.EngineOverloaded,
    `the engine has ${max} calls in flight (max_in_flight); this call to ${functionId} was not sent: ` +
      'retry later, or raise max_in_flight',
  );

export const callerOverloadedError = (functionId: string, max: number): ErrorBody =>
  errorBody(
    EngineErrorCode.CallerOverloaded,
    `this connection already waits on ${max} calls (max_in_flight_per_caller); this call to ${functionId} was not ` +
      'sent: wait for answers before making more calls, or raise max_in_flight_per_caller',
  );
