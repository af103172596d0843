/**
 * Every error code the SDK produces, and the codes of the wire protocol it relays. Codes are stable: a caller matches
 * on them. docs/errors.md lists each one; test/docs/error-codes.test.ts fails when the two disagree.
 */

/** The wire protocol's codes (engine and SDK), as iii-sdk sends and expects them. */
export const ErrorCode = Object.freeze({
  /** No connected worker provides the function id (or the worker that got the call no longer has it). */
  FunctionNotFound: 'function_not_found',
  /** The handler threw; the message is its message and the stacktrace its stack. */
  InvocationFailed: 'invocation_failed',
  /** The executor (or the caller's connection) went away before the call finished. */
  InvocationStopped: 'invocation_stopped',
  /** The engine's deadline for the call passed. */
  InvocationTimeout: 'invocation_timeout',
  /** An internal failure while waiting for a result (reserved by the wire protocol). */
  InvocationError: 'invocation_error',
  /** The frame could not be handed to the executor's connection. */
  ChannelSendFailed: 'channel_send_failed',
  /** `TriggerAction.Enqueue` failed (no queue provider, or it refused). */
  EnqueueError: 'enqueue_error',
  /** A built-in function's input did not match its shape (reserved by the wire protocol). */
  DeserializationError: 'deserialization_error',
  /** A payload or a result could not be encoded as JSON. */
  SerializationError: 'serialization_error',
  /** A handler's result is larger than the engine takes in one message (`max_payload_bytes`); nothing else failed. */
  ResultTooLarge: 'result_too_large',
  /** A trigger-type provider refused a binding. */
  TriggerRegistrationFailed: 'trigger_registration_failed',
  /** A provider was asked to activate a binding of a type it does not provide. */
  TriggerTypeNotFound: 'trigger_type_not_found',
  /** The function was registered with an HTTP invocation config and cannot run locally. */
  FunctionNotInvokable: 'function_not_invokable',
  /** A frame was not a valid protocol message. */
  InvalidFrame: 'invalid_frame',
  /** The caller aborted the call. */
  Cancelled: 'cancelled',
  /** The named function, worker, trigger or entry does not exist (inherited spelling). */
  NotFound: 'NOT_FOUND',
  /** The input had a wrong field; the message names it (inherited spelling). */
  InvalidArguments: 'INVALID_ARGUMENTS',
} as const);

/** Codes the client raises on its own, for calls it cannot complete. */
export const ClientErrorCode = Object.freeze({
  /** The caller's own deadline (`timeoutMs`) passed before a result arrived (inherited spelling). */
  Timeout: 'TIMEOUT',
  /** The error value that came back was not a `{ code, message }` object (inherited spelling). */
  Unknown: 'UNKNOWN',
  /** `shutdown()` was called while the call was pending. */
  ClientShutdown: 'client_shutdown',
  /** The connection closed for good (reconnection gave up or was never configured). */
  ConnectionClosed: 'connection_closed',
  /** A data channel ended abnormally before its writer finished (`ChannelReader`). */
  ChannelClosed: 'channel_closed',
  /** A call's payload is larger than the engine takes in one message (`max_payload_bytes`); it was not sent. */
  PayloadTooLarge: 'payload_too_large',
} as const);

/**
 * Update-op problems (docs/errors.md, "Update ops"), reported per op in `errors[]`. A path problem is reported as
 * `<op>.path.<reason>` with one of the `Path…` reasons below.
 */
export const UpdateOpErrorCode = Object.freeze({
  /** Path reason: more segments than allowed. */
  PathTooDeep: 'too_deep',
  /** Path reason: an empty segment. */
  PathEmptySegment: 'empty_segment',
  /** Path reason: a segment longer than allowed. */
  PathSegmentTooLong: 'segment_too_long',
  /** Path reason: a prototype key (`__proto__`, `constructor`, `prototype`). */
  PathProtoPolluted: 'proto_polluted',
  /** A `merge` value is not an object. */
  MergeValueNotAnObject: 'merge.value.not_an_object',
  /** A `merge` value is nested too deep. */
  MergeValueTooDeep: 'merge.value.too_deep',
  /** A `merge` value has too many top-level keys. */
  MergeValueTooManyKeys: 'merge.value.too_many_keys',
  /** A `merge` value holds a prototype key. */
  MergeValueProtoPolluted: 'merge.value.proto_polluted',
  /** `append` to a value of another type. */
  AppendTypeMismatch: 'append.type_mismatch',
  /** `set` of a field on a value that is not an object. */
  SetTargetNotObject: 'set.target_not_object',
  /** `remove` of a field on a value that is not an object. */
  RemoveTargetNotObject: 'remove.target_not_object',
  /** `increment` of a field on a value that is not an object. */
  IncrementTargetNotObject: 'increment.target_not_object',
  /** `decrement` of a field on a value that is not an object. */
  DecrementTargetNotObject: 'decrement.target_not_object',
  /** `append` under a value that is not an object. */
  AppendTargetNotObject: 'append.target_not_object',
  /** `increment` of a value that is not a number. */
  IncrementNotNumber: 'increment.not_number',
  /** `decrement` of a value that is not a number. */
  DecrementNotNumber: 'decrement.not_number',
} as const);

/** The code of a path problem of op `op`: `<op>.path.<reason>`. */
export function updateOpPathCode(op: string, reason: string): string {
  return `${op}.path.${reason}`;
}
