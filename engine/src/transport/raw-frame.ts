/**
 * Forwarding a caller's `invokefunction` without re-encoding it (a transport capability: the core only hands
 * the frame it received back to the executor's connection). Re-encoding dominates the engine's cost for
 * large payloads (JSON.stringify of a 10 KiB string costs more than parsing it), so for the common case (a sync
 * call whose frame JSON.parse has already validated) the engine splices `_caller_worker_id` into the raw text of
 * `data` and forwards the rest as it came. Anything unusual (a duplicated top-level key, an escaped key, `data`
 * not an object) makes `spliceCallerId` return undefined, and the caller falls back to re-encoding.
 */

import { quoteId } from '@svc/sdk/core';

const QUOTE = 34; // "
const BACKSLASH = 92;
const OPEN_BRACE = 123; // {
const CLOSE_BRACE = 125; // }
const OPEN_BRACKET = 91; // [
const CLOSE_BRACKET = 93; // ]
const COLON = 58;
const COMMA = 44;

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** `i` is at an opening quote; returns the index after the closing quote (native search: payloads are long). */
function skipString(text: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (quote - 1 - backslashes > i && text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** `i` is at the start of a value; returns the index just after it. */
function skipValue(text: string, i: number): number {
  const first = text.charCodeAt(i);
  if (first === QUOTE) return skipString(text, i);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)) break;
      i++;
    }
    return i;
  }
  let depth = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = skipString(text, i);
      if (i < 0) return -1;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

/** Where the top-level `data` value starts and ends, when every top-level key is plain and unique. */
function dataSpan(text: string): { start: number; end: number } | undefined {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACE) return undefined;
  i = skipSpace(text, i + 1);
  const seen = new Set<string>();
  let span: { start: number; end: number } | undefined;
  while (i < text.length && text.charCodeAt(i) !== CLOSE_BRACE) {
    if (text.charCodeAt(i) !== QUOTE) return undefined;
    const keyEnd = skipString(text, i);
    if (keyEnd < 0) return undefined;
    const key = text.slice(i + 1, keyEnd - 1);
    if (key.includes('\\') || seen.has(key)) return undefined;
    seen.add(key);
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) return undefined;
    const start = skipSpace(text, i + 1);
    const end = skipValue(text, start);
    if (end < 0) return undefined;
    if (key === 'data') span = { start, end };
    i = skipSpace(text, end);
    if (text.charCodeAt(i) === COMMA) i = skipSpace(text, i + 1);
  }
  return span;
}

const DATA_KEY = '"data":';
/** `DATA_KEY` without its opening quote: the commonest character of JSON text is a slow first character to search. */
const DATA_NAME = 'data":';

/**
 * Where `"data":` first occurs at or after `from`. Found by searching for `data":` and checking the quote before it:
 * a search whose first character is a quote stops at every string of the text (an HTTP request's payload: ~280 ns
 * to find none in 500 characters, against ~90 ns this way).
 */
function indexOfDataKey(text: string, from: number): number {
  for (let at = text.indexOf(DATA_NAME, from + 1); at >= 0; at = text.indexOf(DATA_NAME, at + 1)) {
    if (text.charCodeAt(at - 1) === QUOTE) return at - 1;
  }
  return -1;
}

/** A backslash in `text[from, to)` (a key: a few characters). */
function hasBackslash(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === BACKSLASH) return true;
  return false;
}

/**
 * Where the top-level `data` value starts, found without walking the payload: `"data":` cannot occur inside a
 * JSON string (its closing quote would be escaped), so its first occurrence is a key; it is `data`'s own when the
 * keys before it, walked one by one, lead to it (depth 1), and the only one when none follows (so not a
 * duplicate, nor an escaped spelling of one: no backslash follows either). Undefined when any of that does not
 * hold: `dataSpan` then decides, walking every key.
 */
function quickDataStart(text: string): number | undefined {
  const at = indexOfDataKey(text, 0);
  if (at < 0) return undefined;
  const valueAt = at + DATA_KEY.length;
  if (indexOfDataKey(text, valueAt) >= 0 || text.indexOf('\\', valueAt) >= 0) return undefined;
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACE) return undefined;
  i = skipSpace(text, i + 1);
  while (i < at) {
    if (text.charCodeAt(i) !== QUOTE) return undefined;
    const keyEnd = skipString(text, i);
    if (keyEnd < 0 || hasBackslash(text, i + 1, keyEnd - 1)) return undefined;
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) return undefined;
    const end = skipValue(text, skipSpace(text, i + 1));
    if (end < 0) return undefined;
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== COMMA) return undefined;
    i = skipSpace(text, i + 1);
  }
  return i === at ? skipSpace(text, valueAt) : undefined;
}

/**
 * The frame with `"_caller_worker_id":"<workerId>"` added as the first key of its top-level `data` object (and
 * `firstField`, when given, as the frame's own first field), or undefined when the frame is not in the simple
 * shape this handles. `text` must already be valid JSON (the engine JSON.parses every frame first) and its `data`
 * must not already hold `_caller_worker_id`.
 */
export function spliceCallerId(text: string, workerId: string, firstField = ''): string | undefined {
  try {
    const start = quickDataStart(text) ?? dataSpan(text)?.start;
    if (start === undefined || text.charCodeAt(start) !== OPEN_BRACE) return undefined;
    const afterBrace = skipSpace(text, start + 1);
    const empty = text.charCodeAt(afterBrace) === CLOSE_BRACE;
    const field = `"_caller_worker_id":${quoteId(workerId)}${empty ? '' : ','}`;
    const before = firstField === '' ? text.slice(0, start + 1) : `{${firstField}${text.slice(1, start + 1)}`;
    return before + field + text.slice(start + 1);
  } catch {
    return undefined;
  }
}

const TRACEPARENT_KEY = '"traceparent"';

/**
 * The raw frame with its top-level `traceparent` set to `next` (an observer's span). A W3C traceparent has a
 * fixed shape, so replacing `"traceparent":"<previous>"` is exact when it occurs once; a frame without one gets
 * the key in front. Anything unusual (the key more than once, spaces around the colon) returns undefined and the
 * frame is re-encoded instead.
 */
export function spliceTraceparent(raw: string, previous: string | undefined, next: string): string | undefined {
  if (previous === undefined) {
    if (raw.charCodeAt(0) !== OPEN_BRACE || raw.includes(TRACEPARENT_KEY)) return undefined;
    return `{${TRACEPARENT_KEY}:"${next}",${raw.slice(1)}`;
  }
  const field = `${TRACEPARENT_KEY}:"${previous}"`;
  const at = raw.indexOf(field);
  if (at < 0 || raw.indexOf(TRACEPARENT_KEY, at + 1) >= 0 || raw.lastIndexOf(TRACEPARENT_KEY, at - 1) >= 0) {
    return undefined;
  }
  return `${raw.slice(0, at)}${TRACEPARENT_KEY}:"${next}"${raw.slice(at + field.length)}`;
}

/** A replacement of the frame's top-level `traceparent` (a lifecycle observer's span, docs/hooks.md). */
export interface TraceReplacement {
  readonly previous: string | undefined;
  readonly next: string;
}

/**
 * The text to send an executor for a caller's sync call received as `raw` (with decoded `data`): the text as it
 * came, or with `_caller_worker_id` spliced into `data` when `callerWorkerId` is given, and its `traceparent`
 * replaced when `trace` is given. Undefined when it cannot go as text (not a string, `data` not a plain object,
 * or one already holding `_caller_worker_id`, which the re-encoding path overwrites, or a frame shape the splices
 * do not handle).
 */
export function forwardableText(
  raw: unknown,
  data: unknown,
  callerWorkerId: string | undefined,
  trace?: TraceReplacement,
): string | undefined {
  if (typeof raw !== 'string') return undefined;
  if (trace !== undefined && trace.previous === undefined && callerWorkerId !== undefined) {
    // both splices in one pass over the text as it came: a second splice into the first one's result would make
    // V8 copy that result into one piece before searching it
    if (raw.charCodeAt(0) !== OPEN_BRACE || raw.includes(TRACEPARENT_KEY) || !acceptsCallerId(data)) return undefined;
    return spliceCallerId(raw, callerWorkerId, `${TRACEPARENT_KEY}:"${trace.next}",`);
  }
  let text: string | undefined = raw;
  if (trace !== undefined) text = spliceTraceparent(raw, trace.previous, trace.next);
  // unchanged text: the executor parses exactly what the engine validated (duplicate keys resolve the same way)
  if (text === undefined || callerWorkerId === undefined) return text;
  if (!acceptsCallerId(data)) return undefined;
  return spliceCallerId(text, callerWorkerId);
}

/**
 * The text to send an executor that announced appended fields (`FEATURE_APPENDED_FIELDS`, docs/protocol.md 3.3) for
 * a caller's sync call received as `raw`: the text as it came with the engine's fields added at the end of its top
 * level, where the last of a repeated key wins: `caller_worker_id` when `data` is an object (the worker moves it into
 * `data`, over any `_caller_worker_id` the caller put there; null when no worker called) and the replacement
 * `traceparent`. Nothing of the text is walked: its last character is the only one read. Undefined when the text
 * does not end in `}` (trailing whitespace): `forwardableText` then decides.
 */
export function appendedText(
  raw: unknown,
  data: unknown,
  callerWorkerId: string | undefined,
  trace?: TraceReplacement,
): string | undefined {
  if (typeof raw !== 'string' || raw.charCodeAt(raw.length - 1) !== CLOSE_BRACE) return undefined;
  let fields = '';
  if (typeof data === 'object' && data !== null && !Array.isArray(data)) {
    // null (a call no worker made) overrides any id the caller wrote there itself
    fields = `,"caller_worker_id":${callerWorkerId === undefined ? 'null' : quoteId(callerWorkerId)}`;
  }
  if (trace !== undefined) fields += `,${TRACEPARENT_KEY}:"${trace.next}"`;
  return fields === '' ? raw : `${raw.slice(0, -1)}${fields}}`;
}

/** `data` is a plain object without `_caller_worker_id` (one holding it goes the re-encoding path). */
function acceptsCallerId(data: unknown): boolean {
  return typeof data === 'object' && data !== null && !Array.isArray(data) && !('_caller_worker_id' in data);
}
