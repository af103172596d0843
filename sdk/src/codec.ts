/**
 * Frame codec: untrusted text → a validated message of protocol.ts, and back.
 *
 * Validation is hand-written guards (no schema library) because it sits on the hot path of every invocation.
 * A frame that fails validation yields a `DecodeFailure` that says what was wrong; the caller decides whether
 * to log it or to answer with an error frame. Unknown keys are ignored, as the wire requires.
 */
import { isUuid, type ErrorBody, type InvokeFunction, type Message, type TriggerActionWire } from './protocol.js';
import { InvokeFrame, ResultFrame } from './wire-frames.js';
import { nestedDeeperThan } from './json-depth.js';

export interface DecodeFailure {
  ok: false;
  /** `unknown_type` frames are logged and ignored; every other reason is a malformed frame. */
  reason: 'empty' | 'invalid_json' | 'not_an_object' | 'unknown_type' | 'invalid_field';
  message: string;
  /** The `type` of the frame when it had one. */
  frameType?: string;
}

export type DecodeResult = { ok: true; message: Message } | DecodeFailure;

type Obj = Record<string, unknown>;

const fail = (reason: DecodeFailure['reason'], message: string, frameType?: string): DecodeFailure => ({
  ok: false,
  reason,
  message,
  frameType,
});

function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(o: Obj, key: string): boolean {
  return typeof o[key] === 'string';
}

function optStr(o: Obj, key: string): boolean {
  return isOptStr(o[key]);
}

function isOptStr(value: unknown): boolean {
  return value === undefined || value === null || typeof value === 'string';
}

function isErrorBody(value: unknown): value is ErrorBody {
  return isObject(value) && typeof value.code === 'string' && typeof value.message === 'string';
}

function isAction(value: unknown): value is TriggerActionWire | null | undefined {
  if (value === undefined || value === null) return true;
  if (!isObject(value)) return false;
  if (value.type === 'void') return true;
  return value.type === 'enqueue' && typeof value.queue === 'string';
}

/** The first offending field of an `invokefunction`, given its fields, or undefined. */
function invalidInvoke(
  invocationId: unknown,
  functionId: unknown,
  action: unknown,
  traceparent: unknown,
  baggage: unknown,
  timeoutMs: unknown,
  firedBy: unknown,
): string | undefined {
  if (invocationId !== undefined && invocationId !== null && !isUuid(invocationId)) return 'invocation_id';
  if (typeof functionId !== 'string') return 'function_id';
  if (!isAction(action)) return 'action';
  if (!isOptStr(traceparent)) return 'traceparent';
  if (!isOptStr(baggage)) return 'baggage';
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !(timeoutMs > 0))) return 'timeout_ms';
  return isOptStr(firedBy) ? undefined : 'fired_by';
}

/**
 * How deep a field of a registration frame (formats, metadata, a trigger's config) may nest. The engine keeps these
 * and writes them again to providers and to introspection, which deeper JSON would overflow the stack writing.
 */
export const MAX_REGISTRATION_DEPTH = 128;

/** The first field of a registration frame nested deeper than MAX_REGISTRATION_DEPTH, or undefined. */
function tooDeepField(o: Obj): string | undefined {
  for (const key in o) {
    if (Object.hasOwn(o, key) && nestedDeeperThan(o[key], MAX_REGISTRATION_DEPTH)) return key;
  }
  return undefined;
}

/** Returns the name of the first offending field, or undefined when the frame is well-formed. */
function invalidField(o: Obj): string | undefined {
  switch (o.type) {
    // the two frames of every call first: a switch on strings compares its cases in order
    case 'invokefunction':
      return invalidInvoke(
        o.invocation_id,
        o.function_id,
        o.action,
        o.traceparent,
        o.baggage,
        o.timeout_ms,
        o.fired_by,
      );
    case 'invocationresult':
      if (!isUuid(o.invocation_id)) return 'invocation_id';
      if (o.error !== undefined && o.error !== null && !isErrorBody(o.error)) return 'error';
      return undefined;
    case 'registerfunction':
    case 'unregisterfunction':
    case 'unregistertriggertype':
    case 'registertriggertype':
    case 'registerservice':
      if (!str(o, 'id') || (o.id as string).length === 0) return 'id';
      if (!optStr(o, 'description')) return 'description';
      if (o.type === 'registerfunction' && o.invocation !== undefined && o.invocation !== null) {
        if (!isObject(o.invocation) || typeof o.invocation.url !== 'string') return 'invocation.url';
      }
      return tooDeepField(o);
    case 'registertrigger':
      if (!str(o, 'id')) return 'id';
      if (!str(o, 'trigger_type')) return 'trigger_type';
      if (!str(o, 'function_id')) return 'function_id';
      return tooDeepField(o);
    case 'unregistertrigger':
      if (!str(o, 'id')) return 'id';
      return optStr(o, 'trigger_type') ? undefined : 'trigger_type';
    case 'triggerregistrationresult':
      if (!str(o, 'id')) return 'id';
      if (o.error !== undefined && o.error !== null && !isErrorBody(o.error)) return 'error';
      return undefined;
    case 'reattach':
      if (!str(o, 'previous_worker_id')) return 'previous_worker_id';
      return optStr(o, 'reattach_token') ? undefined : 'reattach_token';
    case 'workerregistered':
      return str(o, 'worker_id') ? undefined : 'worker_id';
    case 'cancelinvocation':
      return isUuid(o.invocation_id) ? undefined : 'invocation_id';
    case 'error':
      return isErrorBody(o.error) ? undefined : 'error';
    case 'ping':
    case 'pong':
      return undefined;
    default:
      return '';
  }
}

/**
 * The whole text of an answer without a value, or with null, as this SDK writes it (`ResultFrame.wire`): the
 * invocation id, the function id (a JSON string with nothing to unescape) and whether `result` is null.
 */
const EMPTY_RESULT =
  // eslint-disable-next-line no-control-regex -- a JSON string holds no raw control character
  /^\{"type":"invocationresult","invocation_id":"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})","function_id":"([^"\\\x00-\x1f]*)"(,"result":null)?\}$/;

const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
/** The last letter of `null`. */
const LOWER_L = 0x6c;

/**
 * An answer that carries no value, or a null one, in this SDK's layout: the message JSON.parse would make of that
 * exact text, read by one match instead (a delivery of an event, a state change or a cron tick is answered so, and
 * the engine reads one such answer per delivery). Undefined for any other text, which `decodeFrame` parses:
 * another key order, spaces, escapes in the function id, an error, any other value. The text's last characters
 * rule most other frames out before the match runs.
 */
function quickEmptyResult(text: string): Message | undefined {
  if (text.charCodeAt(text.length - 1) !== CLOSE_BRACE) return undefined;
  const last = text.charCodeAt(text.length - 2);
  if (last !== QUOTE && last !== LOWER_L) return undefined;
  const match = EMPTY_RESULT.exec(text);
  if (match === null) return undefined;
  const [, invocationId, functionId, nullResult] = match as unknown as [string, string, string, string | undefined];
  return nullResult === undefined
    ? { type: 'invocationresult', invocation_id: invocationId, function_id: functionId }
    : { type: 'invocationresult', invocation_id: invocationId, function_id: functionId, result: null };
}

/** Parses one text frame. Never throws. */
export function decodeFrame(text: string): DecodeResult {
  const answer = quickEmptyResult(text);
  if (answer !== undefined) return { ok: true, message: answer };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    // an empty or blank text is no JSON either: told apart only here, off the path of every frame that parses
    if (text.trim().length === 0) return fail('empty', 'empty frame');
    return fail('invalid_json', `frame is not valid JSON: ${(err as Error).message}`);
  }
  return decodeValue(parsed);
}

/** Validates an already-parsed value as a protocol message. */
export function decodeValue(parsed: unknown): DecodeResult {
  // A call this SDK built (an engine module's, handed over as an object): its fields read from one class. Read by
  // the checks below, which see frames of every shape, each lookup was megamorphic (~2.6% of the engine's CPU per
  // event delivery, where every delivery is such a call).
  if (parsed instanceof InvokeFrame) {
    const f = parsed;
    const bad = invalidInvoke(
      f.invocation_id,
      f.function_id,
      f.action,
      f.traceparent,
      f.baggage,
      f.timeout_ms,
      f.fired_by,
    );
    if (bad === undefined) return { ok: true, message: f };
    return fail('invalid_field', `invokefunction: missing or invalid field "${bad}"`, 'invokefunction');
  }
  if (!isObject(parsed)) return fail('not_an_object', 'frame must be a JSON object with a "type" key');
  const type = parsed.type;
  if (typeof type !== 'string') return fail('not_an_object', 'frame has no string "type" key');
  const bad = invalidField(parsed);
  if (bad === '') return fail('unknown_type', `unknown message type "${type}"`, type);
  if (bad !== undefined) {
    const why = nestedDeeperThan(parsed[bad], MAX_REGISTRATION_DEPTH)
      ? `field "${bad}" is nested deeper than ${MAX_REGISTRATION_DEPTH} levels`
      : `missing or invalid field "${bad}"`;
    return fail('invalid_field', `${type}: ${why}`, type);
  }
  if (parsed.type === 'triggerregistrationresult' && typeof parsed.trigger_type !== 'string') {
    // The client falls back to `type` when `trigger_type` is absent; keep a string so handlers need not care.
    parsed.trigger_type = '';
  }
  return { ok: true, message: parsed as unknown as Message };
}

/**
 * Serialises a message for the wire. Undefined fields vanish, as the wire expects. The calls and answers this SDK
 * builds itself are written by their own `wire()` (wire-frames.ts), with the same JSON as a result.
 */
export function encodeFrame(message: Message): string {
  if (message instanceof InvokeFrame || message instanceof ResultFrame) return message.wire();
  return JSON.stringify(message);
}

/**
 * A call forwarded with the engine's appended fields (`FEATURE_APPENDED_FIELDS`): its caller's worker id goes where
 * every handler finds it, `_caller_worker_id` in an object `data`, replacing any the caller put there itself.
 */
export function callerIntoData(msg: InvokeFunction): void {
  const data = msg.data;
  if (typeof msg.caller_worker_id !== 'string' || typeof data !== 'object' || data === null || Array.isArray(data)) {
    return;
  }
  (data as Record<string, unknown>)._caller_worker_id = msg.caller_worker_id;
}
