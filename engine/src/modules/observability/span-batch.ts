/**
 * The engine's invocation spans as plain records, shipped to svc-otel as engine span batches (`SVCS`): the
 * fields an OpenTelemetry span, `BatchSpanProcessor` and `JsonTraceSerializer` would send for them (resource per
 * service, scope `svc`, kind server, the invocation id and service attributes, status and `exception` event), in
 * a compact text svc-otel turns into the same stored spans as their OTLP/JSON. A span costs one small record
 * while it runs; its batch is written once, when it is shipped (512 spans, or 100 ms after its first span, or
 * about 1 MiB of error text), outside the call that filled it.
 *
 * Ownership: owns its batch timer; `close()` ships what is pending and stops it.
 */
import { randomFillSync } from 'node:crypto';
import type { Attributes } from '@opentelemetry/api';
import { Resource } from '@opentelemetry/resources';
import { ENGINE_SPANS_PREFIX } from '@svc/sdk';
import { isUuid } from '@svc/sdk/core';

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

export class SpanBatch {
  private pending: SpanRecord[] = [];
  private pendingText = 0;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private readonly maxSpans: number;
  private readonly delayMs: number;
  /** `{"resource":{…},"scope":"svc","strings":` (the resource every service shares, written once). */
  private head: string | undefined;
  private readonly micros = new MicrosText();
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

  /** An ended span; shipped with its batch. */
  add(span: SpanRecord): void {
    const pending = this.pending;
    pending.push(span);
    if (span.exceptionType !== undefined) {
      this.pendingText += (span.exceptionMessage?.length ?? 0) * 2 + (span.exceptionStack?.length ?? 0);
    }
    if (pending.length >= this.maxSpans || this.pendingText >= MAX_BATCH_TEXT) {
      // full: written and shipped once the current I/O is done, not inside the call that filled it
      this.immediate ??= setImmediate(this.flushNow);
    } else if (this.timer === undefined && pending.length === 1) {
      this.timer = setTimeout(this.onTimer, this.delayMs);
      this.timer.unref();
    }
  }

  /** Ships everything pending now, in batches of at most `maxBatchSpans`. */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.immediate !== undefined) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
    const spans = this.pending;
    if (spans.length === 0) return;
    this.pending = [];
    this.pendingText = 0;
    for (let from = 0; from < spans.length; from += this.maxSpans) {
      this.options.send(this.payload(spans, from, Math.min(spans.length, from + this.maxSpans)));
    }
  }

  close(): void {
    this.flush();
  }

  /**
   * `spans[from, to)` as one engine span batch (docs/observability.md, "The engine's span batches"): a JSON head
   * (the resource, the scope and a table of the batch's strings), then one line per span of space-separated
   * fields, strings as indexes into the table. Ids, times and numbers need no escaping, and a name or service
   * repeated across the batch is written once.
   */
  serialize(spans: readonly SpanRecord[], from = 0, to = spans.length): string {
    const strings = new StringTable();
    const lines = this.lines(spans, from, to, strings, '\n');
    return `${this.batchHead()}${JSON.stringify(strings.list)}}${lines}`;
  }

  /**
   * The JSON text of `otel::ingest`'s payload for `spans[from, to)`: `{"prefix":"SVCS","body":<the batch>}`,
   * written directly. Only the head needs escaping; the lines are JSON-safe as they are (their separator is
   * written as its escape), so the batch is not escaped character by character again.
   */
  payload(spans: readonly SpanRecord[], from = 0, to = spans.length): string {
    const strings = new StringTable();
    const lines = this.lines(spans, from, to, strings, '\\n');
    const head = JSON.stringify(`${this.batchHead()}${JSON.stringify(strings.list)}}`);
    return `{"prefix":"${ENGINE_SPANS_PREFIX}","body":${head.slice(0, -1)}${lines}"}`;
  }

  /**
   * The lines of `spans[from, to)`, each after `separator`, as one flat string. Every character written is
   * JSON-safe. (Joined from an array, not built by `+=`: a text of thousands of pieces is walked piece by piece
   * when it is written to a buffer, which cost more than making it.)
   */
  private lines(spans: readonly SpanRecord[], from: number, to: number, strings: StringTable, separator: string) {
    const micros = this.micros;
    const lines = new Array<string>(to - from);
    for (let i = from; i < to; i++) {
      const s = spans[i]!;
      const parent = s.parentSpanId ?? '-';
      const id = s.invocationId;
      const invocation = isUuid(id) || PLAIN_ID.test(id) ? id : `#${strings.index(id)}`;
      const error =
        s.exceptionType === undefined
          ? '- - -'
          : `${strings.index(s.exceptionType)} ${strings.optional(s.exceptionMessage)} ${strings.optional(s.exceptionStack)}`;
      lines[i - from] =
        `${separator}${s.traceId} ${s.spanId} ${parent} ${strings.index(s.name)} ${strings.index(s.service)} ` +
        `${strings.index(s.resourceService)} ${invocation} ${micros.text(Math.round(s.startMs * 1000))} ` +
        `${micros.text(Math.round(s.endMs * 1000))} ${s.status} ${strings.optional(s.statusMessage)} ${error}`;
    }
    return lines.join('');
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

/**
 * Whole microseconds since the epoch as decimal text, what `String(us)` gives: the digits above the last eight
 * are the same for every span of a batch (they change every 100 s) and are converted once; the last eight are a
 * small integer's. (A 16-digit number's own conversion was half of a line's cost.)
 */
export class MicrosText {
  private high = -1;
  private highText = '';

  text(us: number): string {
    const high = Math.floor(us / 1e8);
    if (high <= 0 || !Number.isSafeInteger(us)) return String(us);
    if (high !== this.high) {
      this.high = high;
      this.highText = String(high);
    }
    return this.highText + String(us - high * 1e8 + 1e8).slice(1);
  }
}

/** Invocation ids written as they are (UUIDs); any other is written through the string table. */
const PLAIN_ID = /^[0-9A-Za-z_.:][0-9A-Za-z_.:-]*$/;
