/**
 * The lines of an engine span batch (docs/observability.md, "The engine's span batches") as ASCII bytes: each
 * span's 14 fields written into a buffer when the span ends, numbers digit by digit and strings as indexes into
 * the batch's table (`StringTable`), so that no string is made per span. Every byte written is JSON-safe, so the
 * batch goes into its `otel::ingest` payload's JSON text as it is.
 */
import type { SpanRecord } from './span-record.js';

/** The strings of one batch, each written once (the line writer remembers the name and service it used last). */
export class StringTable {
  readonly list: string[] = [];
  private readonly at = new Map<string, number>();

  index(value: string): number {
    let i = this.at.get(value);
    if (i === undefined) {
      i = this.list.push(value) - 1;
      this.at.set(value, i);
    }
    return i;
  }
}

const BACKSLASH = 92;
const LOWER_N = 110;
const SPACE = 32;
const DASH = 45;
const HASH = 35;
const ZERO_DIGIT = 48;

/**
 * The lines of one batch as ASCII bytes in a buffer that grows as needed: each line is `\n` (written as its JSON
 * escape) and the span's 14 fields, numbers written digit by digit and strings as indexes into the batch's table.
 */
export class BatchLines {
  private buffer: Buffer;
  private at = 0;
  count = 0;
  strings = new StringTable();
  /** The last name and service and their indexes: a batch's spans mostly repeat them. */
  private lastName = '';
  private lastNameIndex = -1;
  private lastService = '';
  private lastServiceIndex = -1;

  constructor(bytes: number) {
    this.buffer = Buffer.allocUnsafe(bytes);
  }

  add(s: SpanRecord): void {
    const strings = this.strings;
    const id = s.invocationId;
    // every field's longest form: ids as they are, numbers of at most 16 digits, indexes of at most 10
    const longest = 160 + s.traceparent.length + (s.parentSpanId?.length ?? 1) + id.length;
    if (this.at + longest > this.buffer.length) this.grow(longest);
    const b = this.buffer;
    let at = this.at;
    b[at++] = BACKSLASH;
    b[at++] = LOWER_N;
    // the trace id and span id, as they stand in the span's traceparent
    at = asciiRange(b, at, s.traceparent, 3, 35);
    b[at++] = SPACE;
    at = asciiRange(b, at, s.traceparent, 36, 52);
    b[at++] = SPACE;
    if (s.parentSpanId === undefined) b[at++] = DASH;
    else at = ascii(b, at, s.parentSpanId);
    b[at++] = SPACE;
    at = digits(b, at, this.nameIndex(s.name));
    b[at++] = SPACE;
    const service = this.serviceIndex(s.service);
    at = digits(b, at, service);
    b[at++] = SPACE;
    at = digits(b, at, s.resourceService === s.service ? service : strings.index(s.resourceService));
    b[at++] = SPACE;
    const end = plainId(b, at, id);
    if (end >= 0) {
      at = end;
    } else {
      b[at++] = HASH;
      at = digits(b, at, strings.index(id));
    }
    b[at++] = SPACE;
    at = decimal(b, at, Math.round(s.startMs * 1000));
    b[at++] = SPACE;
    at = decimal(b, at, Math.round(s.endMs * 1000));
    b[at++] = SPACE;
    b[at++] = ZERO_DIGIT + s.status;
    b[at++] = SPACE;
    at = optional(b, at, strings, s.statusMessage);
    b[at++] = SPACE;
    if (s.exceptionType === undefined) {
      b[at++] = DASH;
      b[at++] = SPACE;
      b[at++] = DASH;
      b[at++] = SPACE;
      b[at++] = DASH;
    } else {
      at = digits(b, at, strings.index(s.exceptionType));
      b[at++] = SPACE;
      at = optional(b, at, strings, s.exceptionMessage);
      b[at++] = SPACE;
      at = optional(b, at, strings, s.exceptionStack);
    }
    this.at = at;
    this.count++;
  }

  /** The lines written so far, as one flat string. */
  text(): string {
    return this.buffer.toString('latin1', 0, this.at);
  }

  /** Empties the batch (the buffer is kept for the next one). */
  reset(): void {
    this.at = 0;
    this.count = 0;
    this.strings = new StringTable();
    this.lastNameIndex = -1;
    this.lastServiceIndex = -1;
  }

  private nameIndex(name: string): number {
    if (this.lastNameIndex < 0 || name !== this.lastName) {
      this.lastName = name;
      this.lastNameIndex = this.strings.index(name);
    }
    return this.lastNameIndex;
  }

  private serviceIndex(service: string): number {
    if (this.lastServiceIndex < 0 || service !== this.lastService) {
      this.lastService = service;
      this.lastServiceIndex = this.strings.index(service);
    }
    return this.lastServiceIndex;
  }

  private grow(bytes: number): void {
    const bigger = Buffer.allocUnsafe(Math.max(2 * this.buffer.length, this.at + bytes));
    this.buffer.copy(bigger, 0, 0, this.at);
    this.buffer = bigger;
  }
}

/** Writes `text` (ASCII) at `at`; returns where it ends. */
function ascii(b: Buffer, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) b[at + i] = text.charCodeAt(i);
  return at + text.length;
}

/** Writes `text[from, to)` (ASCII) at `at`; returns where it ends. */
function asciiRange(b: Buffer, at: number, text: string, from: number, to: number): number {
  for (let i = from; i < to; i++) b[at++] = text.charCodeAt(i);
  return at;
}

/**
 * Writes an invocation id as it is when every character is one of `[0-9A-Za-z_.:-]` and it does not start with
 * `-` (UUIDs, and the plain ids other clients make); returns where it ends, or -1 (nothing to keep) when it is
 * not such an id and goes through the string table instead.
 */
function plainId(b: Buffer, at: number, id: string): number {
  const n = id.length;
  if (n === 0 || id.charCodeAt(0) === DASH) return -1;
  for (let i = 0; i < n; i++) {
    const c = id.charCodeAt(i);
    if (c > 127 || PLAIN_ID_CHAR[c] === 0) return -1;
    b[at + i] = c;
  }
  return at + n;
}

/** `-` for none (undefined or empty), else the text's index in the table. */
function optional(b: Buffer, at: number, strings: StringTable, text: string | undefined): number {
  if (text === undefined || text === '') {
    b[at] = DASH;
    return at + 1;
  }
  return digits(b, at, strings.index(text));
}

/**
 * Writes a non-negative safe integer in decimal, as `String(n)` would (anything else, which a span never has, as
 * `String(n)` writes it); returns where it ends. The digits above the last eight and the last eight are each
 * small integers, written with integer arithmetic.
 */
export function decimal(b: Buffer, at: number, n: number): number {
  if (!(n >= 0) || !Number.isSafeInteger(n)) return ascii(b, at, String(n));
  if (n < 1e8) return digits(b, at, n);
  const high = Math.floor(n / 1e8);
  at = digits(b, at, high);
  let low = n - high * 1e8;
  for (let i = at + 7; i >= at; i--) {
    const q = (low / 10) | 0;
    b[i] = ZERO_DIGIT + low - q * 10;
    low = q;
  }
  return at + 8;
}

/** Writes `n` (an integer from 0 to 2^31 - 1) in decimal; returns where it ends. */
function digits(b: Buffer, at: number, n: number): number {
  let count = 1;
  for (let p = 10; p <= n; p *= 10) count++;
  for (let i = at + count - 1; i >= at; i--) {
    const q = (n / 10) | 0;
    b[i] = ZERO_DIGIT + n - q * 10;
    n = q;
  }
  return at + count;
}

/** The characters of an invocation id written as it is (`[0-9A-Za-z_.:-]`); any other id goes through the table. */
const PLAIN_ID_CHAR = new Uint8Array(128);
for (const c of '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_.:-')
  PLAIN_ID_CHAR[c.charCodeAt(0)] = 1;
