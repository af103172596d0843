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
import type { Attributes } from '@opentelemetry/api';
import { Resource } from '@opentelemetry/resources';
import { ENGINE_SPANS_PREFIX } from '@svc/sdk';
import { BatchLines } from './span-lines.js';
import type { SpanRecord } from './span-record.js';

/** The instrumentation scope of the engine's spans (the tracer name the SDK's `Telemetry` used). */
export const ENGINE_SPAN_SCOPE = 'svc';

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
