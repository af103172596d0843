/**
 * Payloads sent unchanged to many workers in one fan-out (a pubsub publish delivered to every subscriber): the
 * sender marks the object as shared for the duration of the fan-out, and each WebSocket connection that writes an
 * `invokefunction` carrying it reuses one JSON text of it instead of serialising it again per subscriber (only
 * the small envelope around it is encoded per frame). The text is made by the first connection that needs it.
 *
 * The sender promises not to change the object while it is shared, and releases it when the fan-out's frames
 * have been written (`shareWhileSending` does both). An object nobody shared is encoded as usual.
 *
 * Every `invokefunction` the engine built goes out through `encodeInvoke` (below), shared payload or not.
 */

import { isUuid, jsonField, quoteId, type InvokeFunction } from '@svc/sdk/core';

const texts = new WeakMap<object, string | null>();

/** Marks `data` as shared (unchanged) until `release(data)`. Values that are not objects need no marking. */
export function share(data: unknown): void {
  if (typeof data === 'object' && data !== null && !texts.has(data)) texts.set(data, null);
}

export function release(data: unknown): void {
  if (typeof data === 'object' && data !== null) texts.delete(data);
}

/**
 * Runs `send` with `data` shared, and releases it once the microtasks queued by `send` have run (the in-process
 * transport hands each frame to the core on a microtask, and the core writes it to the socket right there).
 */
export function shareWhileSending(data: unknown, send: () => void): void {
  share(data);
  try {
    send();
  } finally {
    queueMicrotask(() => release(data));
  }
}

/**
 * Runs `send` with `text` as the JSON of `data` (an object its sender built and encoded itself, and does not change),
 * released like `shareWhileSending`: a connection that writes it uses the text instead of serialising it.
 */
export function sendEncoded(data: object, text: string, send: () => void): void {
  texts.set(data, text);
  try {
    send();
  } finally {
    queueMicrotask(() => release(data));
  }
}

/** The JSON text of a shared `data` (made once), or undefined when `data` is not shared. Throws as JSON.stringify. */
export function sharedText(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const text = texts.get(data);
  if (text === undefined) return undefined;
  if (text !== null) return text;
  const made = JSON.stringify(data);
  texts.set(data, made);
  return made;
}

/**
 * An `invokefunction` the engine built, as JSON: written field by field in the order the router builds it (the
 * same text as `JSON.stringify` of such a frame, undefined values left out), with `data` as its shared text when
 * it is shared. Walking the frame's keys cost about twice as much as the envelope written from constants, and
 * `JSON.stringify` of the whole frame scans every id and trace context for characters to escape.
 */
export function encodeInvoke(message: InvokeFunction): string {
  const id = message.invocation_id;
  let out = '{"type":"invokefunction"';
  if (id !== undefined) out += `,"invocation_id":${isUuid(id) ? `"${id}"` : JSON.stringify(id)}`;
  out += `,"function_id":${quoteId(message.function_id)}`;
  const data = message.data;
  if (data !== undefined) {
    const text = sharedText(data) ?? JSON.stringify(data);
    if (text !== undefined) out += `,"data":${text}`;
  }
  if (message.metadata !== undefined) out += jsonField('metadata', message.metadata);
  if (message.traceparent !== undefined) out += `,"traceparent":${quote(message.traceparent)}`;
  if (message.baggage !== undefined) out += jsonField('baggage', message.baggage);
  if (message.action !== undefined) out += jsonField('action', message.action);
  if (message.timeout_ms !== undefined) out += jsonField('timeout_ms', message.timeout_ms);
  if (message.fired_by !== undefined) out += jsonField('fired_by', message.fired_by);
  return `${out}}`;
}

/**
 * A string as JSON: as it is between quotes when nothing in it needs escaping (trace context). The last such text
 * is kept: every delivery of one published message carries the same traceparent, so the check runs once per
 * publish instead of once per subscriber.
 */
function quote(value: string): string {
  if (value === lastSafe) return lastQuoted;
  if (!SAFE.test(value)) return JSON.stringify(value);
  lastSafe = value;
  lastQuoted = `"${value}"`;
  return lastQuoted;
}

const SAFE = /^[\w:.-]*$/;
let lastSafe = '';
let lastQuoted = '""';
