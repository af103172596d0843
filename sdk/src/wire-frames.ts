/**
 * The two frames a busy worker sends most, `invokefunction` (a call it makes) and `invocationresult` (an answer it
 * gives), as classes whose text is written field by field: `JSON.stringify` walks and escape-checks every key and
 * string of the envelope, which cost about as much as the rest of the frame's encoding. Here the keys are
 * constants, the invocation id is a UUID (checked where the frame is built, so it needs no escaping), a function
 * id's JSON text is remembered, and only the values that can hold anything (`data`, `result`, `metadata`, …) go
 * through `JSON.stringify`; a payload or result given as `JsonText` is written as its text. The text equals
 * `JSON.stringify` of the same frame (test/wire-frames.test.ts); frames of any other shape, or built elsewhere, are
 * encoded by `JSON.stringify` as before (`encodeFrame`).
 */
import { JsonText } from './json-text.js';
import type { ErrorBody, InvocationResult, InvokeFunction, TriggerActionWire } from './protocol.js';

/** JSON texts of function ids seen lately (ids are few and reused; the table starts again when full). */
const quoted = new Map<string, string>();
const MAX_QUOTED = 4096;

/** The JSON text of a function id, kept in `quoted`. */
export function quoteId(id: string): string {
  let text = quoted.get(id);
  if (text === undefined) {
    if (quoted.size >= MAX_QUOTED) quoted.clear();
    text = JSON.stringify(id);
    quoted.set(id, text);
  }
  return text;
}

/** `,"key":<json>` for a value that is not undefined (and that JSON has a text for), else nothing. */
export function jsonField(key: string, value: unknown): string {
  if (value === undefined) return '';
  const json = JSON.stringify(value) as string | undefined;
  return json === undefined ? '' : `,"${key}":${json}`;
}

/** An `invokefunction` built by this SDK. `invocation_id`, when set, must be a UUID. */
export class InvokeFrame implements InvokeFunction {
  readonly type = 'invokefunction' as const;

  constructor(
    public invocation_id: string | undefined,
    public function_id: string,
    public data: unknown,
    public action: TriggerActionWire | undefined,
    public metadata: unknown,
    public traceparent: string | undefined,
    public baggage: string | undefined,
    public timeout_ms: number | undefined,
    public fired_by: string | undefined,
  ) {}

  /** `JSON.stringify(this)`, written without walking the envelope. */
  wire(): string {
    let text = '{"type":"invokefunction"';
    if (this.invocation_id !== undefined) text += `,"invocation_id":"${this.invocation_id}"`;
    text += `,"function_id":${quoteId(this.function_id)}`;
    // a payload the caller already holds as JSON text (svc-http's request payload) is written as it is
    if (this.data instanceof JsonText) text += `,"data":${this.data.text}`;
    else text += jsonField('data', this.data);
    if (this.action !== undefined) text += jsonField('action', this.action);
    if (this.metadata !== undefined) text += jsonField('metadata', this.metadata);
    if (this.traceparent !== undefined) text += jsonField('traceparent', this.traceparent);
    if (this.baggage !== undefined) text += jsonField('baggage', this.baggage);
    if (this.timeout_ms !== undefined) text += jsonField('timeout_ms', this.timeout_ms);
    if (this.fired_by !== undefined) text += jsonField('fired_by', this.fired_by);
    return text + '}';
  }
}

/** An `invocationresult` built by this SDK, answering an invocation id the engine sent (a UUID). */
export class ResultFrame implements InvocationResult {
  readonly type = 'invocationresult' as const;
  result?: unknown;
  error?: ErrorBody;

  constructor(
    public invocation_id: string,
    public function_id: string,
  ) {}

  /** `JSON.stringify(this)`, written without walking the envelope. */
  wire(): string {
    let text = `{"type":"invocationresult","invocation_id":"${this.invocation_id}","function_id":${quoteId(this.function_id)}`;
    if (this.result instanceof JsonText) text += `,"result":${this.result.text}`;
    // null written as it is: JSON.stringify has a fixed cost of its own per call
    else if (this.result === null) text += ',"result":null';
    else if (this.result !== undefined) text += jsonField('result', this.result);
    if (this.error !== undefined) text += jsonField('error', this.error);
    return text + '}';
  }
}
