/**
 * Every message of the worker protocol, exactly as it is on the wire (docs/protocol.md).
 *
 * Wire compatibility with iii-sdk@0.22.1: one JSON object per WebSocket text frame, discriminated by `type`
 * (lowercase variant name). Unknown keys are ignored (the client adds `message_type` to some frames). Optional
 * fields are omitted rather than sent as `null`, except where noted.
 *
 * svc extensions are optional and additive: `cancelinvocation` (engine → worker) is only sent to a worker that
 * announced the `cancel` feature in the `x-svc-features` upgrade header, and `timeout_ms` on `invokefunction` is
 * only read by the engine (an iii-sdk client never sends it and never receives it).
 */
import { HEX_VALUE, NOT_HEX } from './hex.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The error shape used everywhere on the wire. `stacktrace` is omitted when absent. */
export interface ErrorBody {
  code: string;
  message: string;
  stacktrace?: string;
}

/** `invokefunction.action`. Absent or null means synchronous. */
export type TriggerActionWire = { type: 'void' } | { type: 'enqueue'; queue: string };

export type HttpAuthRef =
  | { type: 'hmac'; secret_key: string }
  | { type: 'bearer'; token_key: string }
  | { type: 'api_key'; header: string; value_key: string };

/** `registerfunction.invocation`: the engine performs the call as an outbound HTTP request. */
export interface HttpInvocationRef {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  timeout_ms?: number;
  headers?: Record<string, string>;
  auth?: HttpAuthRef;
}

export interface WorkerRegistered {
  type: 'workerregistered';
  worker_id: string;
  reattach_token?: string;
}

export interface Reattach {
  type: 'reattach';
  previous_worker_id: string;
  reattach_token?: string;
}

export interface RegisterFunction {
  type: 'registerfunction';
  id: string;
  description?: string;
  request_format?: unknown;
  response_format?: unknown;
  metadata?: unknown;
  invocation?: HttpInvocationRef;
}

export interface UnregisterFunction {
  type: 'unregisterfunction';
  id: string;
}

export interface RegisterTriggerType {
  type: 'registertriggertype';
  id: string;
  description?: string;
  trigger_request_format?: unknown;
  call_request_format?: unknown;
}

export interface UnregisterTriggerType {
  type: 'unregistertriggertype';
  id: string;
}

/** W→E: a worker binds one of its functions. E→W: the engine asks a provider to activate a binding. */
export interface RegisterTrigger {
  type: 'registertrigger';
  id: string;
  trigger_type: string;
  function_id: string;
  config: unknown;
  metadata?: unknown;
}

export interface UnregisterTrigger {
  type: 'unregistertrigger';
  id: string;
  trigger_type?: string;
}

export interface TriggerRegistrationResult {
  type: 'triggerregistrationresult';
  id: string;
  trigger_type: string;
  function_id: string;
  error?: ErrorBody;
}

export interface InvokeFunction {
  type: 'invokefunction';
  /** Absent for void invocations from a worker; always a UUID when the engine sends it. */
  invocation_id?: string | null;
  function_id: string;
  data: unknown;
  traceparent?: string;
  baggage?: string;
  action?: TriggerActionWire | null;
  metadata?: unknown;
  /** svc extension: the caller's own deadline, so the engine can time the invocation out for it. */
  timeout_ms?: number;
  /**
   * svc extension: the trigger binding that fired this call (sent by trigger-type providers), so the engine can
   * tell an event delivery from a worker-to-worker call. `data` still gains `_caller_worker_id` (the provider's
   * id), as docs/protocol.md describes for provider-fired calls; the engine forwards the frame text as is.
   */
  fired_by?: string;
  /**
   * svc extension, to a worker that announced `FEATURE_APPENDED_FIELDS`: the calling worker's id, which that
   * worker adds to an object `data` as `_caller_worker_id` (where other workers find it already); null when no
   * worker made the call.
   */
  caller_worker_id?: string | null;
}

export interface InvocationResult {
  type: 'invocationresult';
  invocation_id: string;
  function_id: string;
  result?: unknown;
  error?: ErrorBody;
  traceparent?: string;
  baggage?: string;
}

export interface RegisterService {
  type: 'registerservice';
  id: string;
  name?: string;
  description?: string;
  parent_service_id?: string;
}

export interface Ping {
  type: 'ping';
}

export interface Pong {
  type: 'pong';
}

/** E→W: sent before closing a connection the engine refuses, and as the reply to an undecodable frame. */
export interface ErrorFrame {
  type: 'error';
  error: ErrorBody;
}

/**
 * svc extension. E→W: the caller of an invocation this worker executes went away, timed out or cancelled; the
 * handler's AbortSignal should fire. Only sent to workers that announced the `cancel` feature.
 * W→E: the caller cancels one of its own pending sync invocations; the engine answers it with `cancelled` and
 * relays the cancel to the executor.
 */
export interface CancelInvocation {
  type: 'cancelinvocation';
  invocation_id: string;
  reason: CancelReason;
}

export type CancelReason = 'caller_disconnected' | 'timeout' | 'cancelled';

/** Every message a worker may send to the engine. */
export type WorkerToEngine =
  | Reattach
  | RegisterFunction
  | UnregisterFunction
  | RegisterTriggerType
  | UnregisterTriggerType
  | RegisterTrigger
  | UnregisterTrigger
  | TriggerRegistrationResult
  | InvokeFunction
  | InvocationResult
  | RegisterService
  | CancelInvocation
  | Ping
  | Pong;

/** Every message the engine may send to a worker. */
export type EngineToWorker =
  | WorkerRegistered
  | RegisterTrigger
  | UnregisterTrigger
  | TriggerRegistrationResult
  | InvokeFunction
  | InvocationResult
  | Ping
  | Pong
  | ErrorFrame
  | CancelInvocation;

export type Message = WorkerToEngine | EngineToWorker;
export type MessageType = Message['type'];

/** The upgrade header in which a worker lists the optional protocol features it understands (comma-separated). */
export const FEATURES_HEADER = 'x-svc-features';
/**
 * The upgrade answer's header with the largest message the engine takes, in bytes (its `max_payload_bytes`). A
 * larger one makes it close the connection with 1009, failing every call in flight on it; a worker that knows the
 * limit refuses such a frame itself instead (docs/protocol.md, 1.3).
 */
export const MAX_PAYLOAD_HEADER = 'x-svc-max-payload';
/** Features our SDK announces. */
export const FEATURE_CANCEL = 'cancel';
/**
 * Frame batches (docs/protocol.md, 1.3): one text message may hold several frames, separated by
 * `FRAME_SEPARATOR`. A worker that announces it receives batches; an engine that answers the upgrade with it in
 * the same header accepts them.
 */
export const FEATURE_BATCH = 'batch';
/**
 * Appended fields (docs/protocol.md, 3.3): the engine may forward a caller's `invokefunction` as it came with fields
 * of its own added at the end of the frame's top level, where a key the frame already holds is repeated and the last
 * one wins (as `JSON.parse` reads it): `caller_worker_id`, which the worker adds to an object `data` as
 * `_caller_worker_id`, and `traceparent`. The engine then finds nothing in the caller's text before sending it on.
 */
export const FEATURE_APPENDED_FIELDS = 'appended-fields';
/**
 * The character between the frames of a batch: U+001E (RS). No JSON text holds it unescaped (a control character
 * is neither whitespace nor allowed raw in a string), so splitting a message at it never cuts a frame.
 */
export const FRAME_SEPARATOR = '\x1e';

/** The features a `FEATURES_HEADER` value lists (comma-separated; a repeated header counts as one list). */
export function parseFeatures(header: string | readonly string[] | undefined): Set<string> {
  const text = typeof header === 'string' ? header : (header ?? []).join(',');
  const features = new Set<string>();
  for (const f of text.split(',')) if (f.trim() !== '') features.add(f.trim());
  return features;
}

/** The wire's error codes (docs/errors.md lists every code with its meaning). */
export { ErrorCode } from './error-codes.js';

/** Non-zero when `value[from, to)` holds a unit that is not a hex digit. */
function notHex(value: string, from: number, to: number): number {
  let bad = 0;
  for (let i = from; i < to; i++) bad |= HEX_VALUE[value.charCodeAt(i)]! & NOT_HEX;
  return bad;
}

/**
 * 8-4-4-4-12 hex digits. It runs on every frame of the hot path: the dashes first, then one table lookup per digit
 * and group, or-ed without a branch per digit (a loop that tested each digit and skipped the dashes took half as
 * long again; a loop of range tests longer still, a regex longer than that).
 */
export function isUuid(value: unknown): value is string {
  if (typeof value !== 'string' || value.length !== 36) return false;
  if (value.charCodeAt(8) !== 45 || value.charCodeAt(13) !== 45 || value.charCodeAt(18) !== 45) return false;
  if (value.charCodeAt(23) !== 45) return false; // '-'
  const bad =
    notHex(value, 0, 8) | notHex(value, 9, 13) | notHex(value, 14, 18) | notHex(value, 19, 23) | notHex(value, 24, 36);
  return bad === 0;
}
