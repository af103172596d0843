/**
 * The engine's invocation spans as plain records, shipped as OTLP/JSON `OTLP` batches: what an OpenTelemetry
 * span, `BatchSpanProcessor` and `JsonTraceSerializer` would send for them (the same resource per service, scope
 * `svc`, kind, attributes, status and `exception` event), without their per-span objects. A span costs one small
 * record while it runs; the JSON of a batch is written once, when the batch is shipped (512 spans, or 100 ms
 * after its first span, or about 1 MiB of error text), outside the call that filled it.
 *
 * Ownership: owns its batch timer; `close()` ships what is pending and stops it.
 */
import { randomFillSync } from 'node:crypto';
import type { Attributes, AttributeValue } from '@opentelemetry/api';
import { Resource } from '@opentelemetry/resources';

/** The instrumentation scope of the engine's spans (the tracer name the SDK's `Telemetry` used). */
export const ENGINE_SPAN_SCOPE = 'svc';
/** OTLP span kind SERVER (the API's `SpanKind.SERVER` + 1). */
const OTLP_KIND_SERVER = 2;
const STATUS_UNSET = 0;
const STATUS_OK = 1;
const STATUS_ERROR = 2;

export interface SpanBatchOptions {
  /** Takes one OTLP/JSON body (`{"resourceSpans":[…]}`); false when it was dropped. */
  send: (body: string) => boolean;
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

/** Random trace and span ids (hex) cut from a buffer refilled from the CSPRNG when used up. */
export class IdPool {
  private readonly pool = Buffer.allocUnsafe(POOL_BYTES);
  private at = POOL_BYTES;

  traceId(): string {
    let id = this.take(16);
    while (id === ZERO_TRACE) id = this.take(16);
    return id;
  }

  spanId(): string {
    let id = this.take(8);
    while (id === ZERO_SPAN) id = this.take(8);
    return id;
  }

  private take(bytes: number): string {
    if (this.at + bytes > POOL_BYTES) {
      randomFillSync(this.pool);
      this.at = 0;
    }
    const id = this.pool.toString('hex', this.at, this.at + bytes);
    this.at += bytes;
    return id;
  }
}

/** Epoch ms (fractional) → OTLP/JSON nanoseconds (a decimal string, µs precision like `performance.now()`). */
export function epochNanos(ms: number): string {
  return `${Math.round(ms * 1000)}000`;
}

const MAX_CACHED = 10_000;
/** About this many bytes of error text in a batch ship it at once (frames stay far below the 4 MiB bound). */
const MAX_BATCH_TEXT = 1024 * 1024;

export class SpanBatch {
  private pending: SpanRecord[] = [];
  private pendingText = 0;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private readonly maxSpans: number;
  private readonly delayMs: number;
  /** Per service: `{"resource":…,"scopeSpans":[{"scope":{"name":"svc"},"spans":[` */
  private readonly heads = new Map<string, string>();
  /** JSON string literals of span names (function ids), reused. */
  private readonly names = new Map<string, string>();
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
      this.options.send(this.serialize(spans, from, Math.min(spans.length, from + this.maxSpans)));
    }
  }

  close(): void {
    this.flush();
  }

  /** `{"resourceSpans":[…]}` of `spans[from, to)`, one resource per service in order of first appearance. */
  serialize(spans: readonly SpanRecord[], from = 0, to = spans.length): string {
    let first = spans[from]!.resourceService;
    let single = true;
    for (let i = from + 1; i < to; i++) {
      if (spans[i]!.resourceService !== first) {
        single = false;
        break;
      }
    }
    if (single) return `{"resourceSpans":[${this.head(first)}${this.spansJson(spans, from, to, undefined)}]}]}]}`;
    const parts: string[] = [];
    const seen = new Set<string>();
    for (let i = from; i < to; i++) {
      first = spans[i]!.resourceService;
      if (seen.has(first)) continue;
      seen.add(first);
      parts.push(`${this.head(first)}${this.spansJson(spans, i, to, first)}]}]}`);
    }
    return `{"resourceSpans":[${parts.join(',')}]}`;
  }

  /** The spans of `spans[from, to)` (only those whose resource is `service`'s when given), comma-separated. */
  private spansJson(spans: readonly SpanRecord[], from: number, to: number, service: string | undefined): string {
    let out = '';
    for (let i = from; i < to; i++) {
      const s = spans[i]!;
      if (service !== undefined && s.resourceService !== service) continue;
      if (out.length > 0) out += ',';
      out += this.spanJson(s);
    }
    return out;
  }

  private spanJson(s: SpanRecord): string {
    const end = epochNanos(s.endMs);
    const parent = s.parentSpanId === undefined ? '' : `"parentSpanId":"${s.parentSpanId}",`;
    const events =
      s.exceptionType === undefined
        ? ''
        : `{"attributes":[${exceptionAttributes(s)}],"name":"exception","timeUnixNano":"${end}","droppedAttributesCount":0}`;
    const status =
      s.statusMessage === undefined
        ? `{"code":${s.status}}`
        : `{"code":${s.status},"message":${JSON.stringify(s.statusMessage)}}`;
    return (
      `{"traceId":"${s.traceId}","spanId":"${s.spanId}",${parent}"name":${this.name(s.name)},` +
      `"kind":${OTLP_KIND_SERVER},"startTimeUnixNano":"${epochNanos(s.startMs)}","endTimeUnixNano":"${end}",` +
      `"attributes":[{"key":"svc.invocation_id","value":{"stringValue":${jsonString(s.invocationId)}}},` +
      `{"key":"service.name","value":{"stringValue":${JSON.stringify(s.service)}}}],"droppedAttributesCount":0,` +
      `"events":[${events}],"droppedEventsCount":0,"status":${status},"links":[],"droppedLinksCount":0}`
    );
  }

  private name(name: string): string {
    let json = this.names.get(name);
    if (json === undefined) {
      json = JSON.stringify(name);
      if (this.names.size < MAX_CACHED) this.names.set(name, json);
    }
    return json;
  }

  private head(service: string): string {
    let head = this.heads.get(service);
    if (head === undefined) {
      // the resource a tracer provider would have: the SDK's defaults, then ours, then the service
      const resource = Resource.default().merge(new Resource({ ...this.options.resource, 'service.name': service }));
      const attributes = Object.keys(resource.attributes).map((key) => ({
        key,
        value: anyValue(resource.attributes[key]),
      }));
      head =
        `{"resource":${JSON.stringify({ attributes, droppedAttributesCount: 0 })},` +
        `"scopeSpans":[{"scope":{"name":"${ENGINE_SPAN_SCOPE}"},"spans":[`;
      if (this.heads.size < MAX_CACHED) this.heads.set(service, head);
    }
    return head;
  }
}

/** `exception.type`, `exception.message` (when not empty), `exception.stacktrace` (when not empty). */
function exceptionAttributes(s: SpanRecord): string {
  let out = `{"key":"exception.type","value":{"stringValue":${JSON.stringify(s.exceptionType)}}}`;
  if (s.exceptionMessage) {
    out += `,{"key":"exception.message","value":{"stringValue":${JSON.stringify(s.exceptionMessage)}}}`;
  }
  if (s.exceptionStack) {
    out += `,{"key":"exception.stacktrace","value":{"stringValue":${JSON.stringify(s.exceptionStack)}}}`;
  }
  return out;
}

const PLAIN_ID = /^[0-9A-Za-z_.:-]*$/;

/** A JSON string literal; ids made of plain characters (UUIDs) need no escaping. */
function jsonString(value: string): string {
  return PLAIN_ID.test(value) ? `"${value}"` : JSON.stringify(value);
}

/** An OTLP `AnyValue` (as `@opentelemetry/otlp-transformer` writes it). */
function anyValue(value: AttributeValue | undefined): unknown {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'number') return Number.isInteger(value) ? { intValue: value } : { doubleValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map((v) => anyValue(v ?? undefined)) } };
  return {};
}
