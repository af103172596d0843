/**
 * The engine's invocation spans as plain records, shipped to svc-otel as engine span batches (`SVCS`): the
 * fields an OpenTelemetry span, `BatchSpanProcessor` and `JsonTraceSerializer` would send for them (resource per
 * service, scope `svc`, kind server, the invocation id and service attributes, status and `exception` event), in
 * a compact text svc-otel turns into the same stored spans as their OTLP/JSON. A span costs one small record
 * while it runs; when it ends, its line is written into the open batch's buffer, and the batch leaves (as the
 * JSON text of its `otel::ingest` payload) at 512 spans, 100 ms after its first span, or at about 1 MiB of error
 * text, outside the call that filled it.
 *
 * Ownership: owns its batch timer and line buffer; `close()` ships what is pending and stops the timer.
 */
import { randomFillSync } from 'node:crypto';
import type { Attributes } from '@opentelemetry/api';
import { Resource } from '@opentelemetry/resources';
import { ENGINE_SPANS_PREFIX } from '@svc/sdk';

/** The instrumentation scope of the engine's spans (the tracer name the SDK's `Telemetry` used). */
export const ENGINE_SPAN_SCOPE = 'svc';
const STATUS_UNSET = 0;
const STATUS_OK = 1;
const STATUS_ERROR = 2;

export interface SpanBatchOptions {
  /** Takes the JSON text of one `otel::ingest` payload (`SpanBatch.payload`); false when it was dropped. */
  send: (payload: string) => boolean;
  /** Resource attributes of every service (`service.name` is set per span's service). */
  resource: Attributes;
  /** Spans per batch (default 512, like `BatchSpanProcessor`). */
  maxBatchSpans?: number;
  /** A batch leaves at the latest this long after its first span, ms (default 100). */
  delayMs?: number;
}

/** One span of an invocation, from its start to its shipping. */
export class SpanRecord {
  /** Epoch ms (fractional) of the end; NaN while it runs. */
  endMs = NaN;
  status = STATUS_UNSET;
  statusMessage: string | undefined = undefined;
  /** The `exception` event: its type, message and stack (`exceptionType` undefined: none). */
  exceptionType: string | undefined = undefined;
  exceptionMessage: string | undefined = undefined;
  exceptionStack: string | undefined = undefined;

  constructor(
    readonly traceId: string,
    readonly spanId: string,
    readonly parentSpanId: string | undefined,
    readonly name: string,
    /** The span's `service.name` attribute: the worker that ran the call. */
    public service: string,
    /** The service of its resource: `service`, or the default one past the bound on services. */
    public resourceService: string,
    readonly invocationId: string,
    /** Epoch ms (fractional). */
    readonly startMs: number,
  ) {}

  ok(): void {
    this.status = STATUS_OK;
  }

  /** An error the way `recordException` + `setStatus(ERROR)` record it: an `exception` event, status error. */
  error(message: string, stack: string | undefined, type: string | undefined): void {
    this.exceptionType = type ?? 'Error';
    this.exceptionMessage = message;
    this.exceptionStack = stack;
    this.status = STATUS_ERROR;
    this.statusMessage = message;
  }
}

const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
const POOL_BYTES = 24 * 1024;

/**
 * Random trace and span ids (hex) cut from a pool of CSPRNG bytes turned into hex once per refill: an id is a
 * substring of that text (a `toString('hex')` per id was a tenth of the tracer's time).
 */
export class IdPool {
  private readonly pool = Buffer.allocUnsafe(POOL_BYTES);
  private hex = '';
  /** Where the next id starts in `hex` (two characters per byte). */
  private at = 2 * POOL_BYTES;

  traceId(): string {
    let id = this.take(32);
    while (id === ZERO_TRACE) id = this.take(32);
    return id;
  }

  spanId(): string {
    let id = this.take(16);
    while (id === ZERO_SPAN) id = this.take(16);
    return id;
  }

  private take(chars: number): string {
    if (this.at + chars > this.hex.length) {
      randomFillSync(this.pool);
      this.hex = this.pool.toString('hex');
      this.at = 0;
    }
    const id = this.hex.slice(this.at, this.at + chars);
    this.at += chars;
    return id;
  }
}

/** About this many bytes of error text in a batch ship it at once (frames stay far below the 4 MiB bound). */
const MAX_BATCH_TEXT = 1024 * 1024;
/** The line buffer's first size: a full batch of 512 ordinary spans is ~70 KiB. */
const LINE_BUFFER_BYTES = 128 * 1024;

export class SpanBatch {
  /**
   * The open batch: each span's line is written into its buffer as the span ends, byte by byte, so no span
   * outlives its invocation and no string is made per span (a record kept until its batch left, then a line of
   * text built from it, made tracing triple the engine's time in garbage collection).
   */
  private lines = new BatchLines(LINE_BUFFER_BYTES);
  private pendingText = 0;
  /** Batches closed at `maxBatchSpans` that wait for the end of the current I/O to leave. */
  private sealed: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private readonly maxSpans: number;
  private readonly delayMs: number;
  /** `{"resource":{…},"scope":"svc","strings":` (the resource every service shares, written once). */
  private head: string | undefined;
  private readonly flushNow = (): void => {
    this.immediate = undefined;
    this.flush();
  };
  private readonly onTimer = (): void => {
    this.timer = undefined;
    this.flush();
  };

  constructor(private readonly options: SpanBatchOptions) {
    this.maxSpans = options.maxBatchSpans ?? 512;
    this.delayMs = options.delayMs ?? 100;
  }

  /** An ended span: its line joins the open batch, which leaves when full or `delayMs` after its first span. */
  add(span: SpanRecord): void {
    const lines = this.lines;
    lines.add(span);
    if (span.exceptionType !== undefined) {
      this.pendingText += (span.exceptionMessage?.length ?? 0) * 2 + (span.exceptionStack?.length ?? 0);
    }
    if (lines.count >= this.maxSpans || this.pendingText >= MAX_BATCH_TEXT) {
      // full: shipped once the current I/O is done, not inside the call that filled it
      this.sealed.push(this.seal());
      this.immediate ??= setImmediate(this.flushNow);
    } else if (this.timer === undefined && lines.count === 1) {
      this.timer = setTimeout(this.onTimer, this.delayMs);
      this.timer.unref();
    }
  }

  /** Ships every batch pending now (each of at most `maxBatchSpans`). */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.immediate !== undefined) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
    if (this.lines.count > 0) this.sealed.push(this.seal());
    if (this.sealed.length === 0) return;
    const batches = this.sealed;
    this.sealed = [];
    for (const payload of batches) this.options.send(payload);
  }

  close(): void {
    this.flush();
  }

  /**
   * `spans[from, to)` as one engine span batch (docs/observability.md, "The engine's span batches"): a JSON head
   * (the resource, the scope and a table of the batch's strings), then one line per span of space-separated
   * fields, strings as indexes into the table. Ids, times and numbers need no escaping, and a name or service
   * repeated across the batch is written once. (The body of `payload`.)
   */
  serialize(spans: readonly SpanRecord[], from = 0, to = spans.length): string {
    return (JSON.parse(this.payload(spans, from, to)) as { body: string }).body;
  }

  /**
   * The JSON text of `otel::ingest`'s payload for `spans[from, to)`, `{"prefix":"SVCS","body":<the batch>}`, as
   * `flush` sends it.
   */
  payload(spans: readonly SpanRecord[], from = 0, to = spans.length): string {
    const lines = new BatchLines(LINE_BUFFER_BYTES);
    for (let i = from; i < to; i++) lines.add(spans[i]!);
    return this.payloadText(lines);
  }

  /** The open batch as its payload's JSON text; the next span starts a new one. */
  private seal(): string {
    const payload = this.payloadText(this.lines);
    this.lines.reset();
    this.pendingText = 0;
    return payload;
  }

  /**
   * `{"prefix":"SVCS","body":…}` written directly: only the head needs escaping; the lines are JSON-safe as they
   * are (their separator is written as its escape), so the batch is not escaped character by character again.
   */
  private payloadText(lines: BatchLines): string {
    const head = JSON.stringify(`${this.batchHead()}${JSON.stringify(lines.strings.list)}}`);
    return `{"prefix":"${ENGINE_SPANS_PREFIX}","body":${head.slice(0, -1)}${lines.text()}"}`;
  }

  private batchHead(): string {
    if (this.head === undefined) {
      // the resource a tracer provider would have: the SDK's defaults, then ours (`service.name` is per span)
      const resource = Resource.default().merge(new Resource(this.options.resource)).attributes;
      this.head = `{"resource":${JSON.stringify(resource)},"scope":"${ENGINE_SPAN_SCOPE}","strings":`;
    }
    return this.head;
  }
}

/** The strings of one batch, each written once; `-` stands for "none" (an empty text is none, too). */
class StringTable {
  readonly list: string[] = [];
  private readonly at = new Map<string, number>();
  /** The last string looked up and its index: spans of a batch mostly repeat the one before. */
  private last: string | undefined = undefined;
  private lastIndex = 0;

  index(value: string): number {
    if (value === this.last) return this.lastIndex;
    let i = this.at.get(value);
    if (i === undefined) {
      i = this.list.push(value) - 1;
      this.at.set(value, i);
    }
    this.last = value;
    this.lastIndex = i;
    return i;
  }

  optional(value: string | undefined): string | number {
    return value === undefined || value === '' ? '-' : this.index(value);
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
class BatchLines {
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
    const longest = 160 + s.traceId.length + s.spanId.length + (s.parentSpanId?.length ?? 1) + id.length;
    if (this.at + longest > this.buffer.length) this.grow(longest);
    const b = this.buffer;
    let at = this.at;
    b[at++] = BACKSLASH;
    b[at++] = LOWER_N;
    at = ascii(b, at, s.traceId);
    b[at++] = SPACE;
    at = ascii(b, at, s.spanId);
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
