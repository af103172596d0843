/**
 * Payloads sent unchanged to many workers in one fan-out (a pubsub publish delivered to every subscriber): the
 * sender marks the object as shared for the duration of the fan-out, and each WebSocket connection that writes an
 * `invokefunction` carrying it reuses one JSON text of it instead of serialising it again per subscriber (only
 * the small envelope around it is encoded per frame). The text is made by the first connection that needs it.
 *
 * The sender promises not to change the object while it is shared, and releases it when the fan-out's frames
 * have been written (`shareWhileSending` does both). An object nobody shared is encoded as usual.
 */

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

/** `"key":` for the keys of an `invokefunction`, written once. */
const KEY_TEXT: Record<string, string> = Object.fromEntries(
  ['type', 'invocation_id', 'function_id', 'data', 'metadata', 'traceparent', 'baggage'].map((k) => [
    k,
    `${JSON.stringify(k)}:`,
  ]),
);

/**
 * `message` as JSON, with `data` written as the shared text when it is shared: the same text JSON.stringify would
 * give for a message whose values are plain JSON (keys in order, undefined values left out).
 */
export function encodeWithShared(message: { readonly data?: unknown }): string {
  const dataText = sharedText(message.data);
  if (dataText === undefined) return JSON.stringify(message);
  let out = '';
  for (const key in message) {
    if (!Object.hasOwn(message, key)) continue;
    const value = (message as Record<string, unknown>)[key];
    if (value === undefined) continue;
    const text = key === 'data' ? dataText : typeof value === 'string' ? quote(value) : JSON.stringify(value);
    if (text === undefined) continue; // a function or symbol: JSON.stringify leaves the key out too
    out += `${out === '' ? '{' : ','}${KEY_TEXT[key] ?? `${JSON.stringify(key)}:`}${text}`;
  }
  return out === '' ? '{}' : `${out}}`;
}

/** A string as JSON: as it is between quotes when nothing in it needs escaping (ids, trace context). */
function quote(value: string): string {
  return SAFE.test(value) ? `"${value}"` : JSON.stringify(value);
}

const SAFE = /^[\w:.-]*$/;
