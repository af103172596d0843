/**
 * One span of an invocation while it runs (`SpanRecord`: ids, name, service, times, status, the `exception`
 * event's fields), and the random trace and span ids the engine gives its spans (`IdPool`). A record lives from
 * the invocation's start to its end; its line is then written into a batch (span-lines.ts, span-batch.ts).
 */
import { randomFillSync } from 'node:crypto';
import { SPAN_ATTRIBUTE_CHARS } from '@svc/sdk/core';

const STATUS_UNSET = 0;
const STATUS_OK = 1;
const STATUS_ERROR = 2;
/** Random bytes drawn at a time (as `crypto.randomUUID` caches them): 170 spans' ids. */
const POOL_BYTES = 4096;
const HEX = Buffer.from('0123456789abcdef', 'latin1');
const TRACE_AT = 3;
const SPAN_AT = 36;
const FLAGS_AT = 54;
/** The length of a W3C `traceparent` of version 00. */
const TRACEPARENT_CHARS = 55;
const ZERO_DIGIT = 48;

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
    /** `00-<trace id>-<span id>-01`: the span's context as the executor receives it (span-record.ts `IdPool`). */
    readonly traceparent: string,
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

  get traceId(): string {
    return this.traceparent.slice(TRACE_AT, TRACE_AT + 32);
  }

  get spanId(): string {
    return this.traceparent.slice(SPAN_AT, SPAN_AT + 16);
  }

  ok(): void {
    this.status = STATUS_OK;
  }

  /**
   * An error the way `recordException` + `setStatus(ERROR)` record it: an `exception` event, status error. Its
   * message, stack and type keep at most `SPAN_ATTRIBUTE_CHARS` characters each, as our SDK's span attributes do
   * (a worker's error may carry megabytes of text, and svc-otel keeps thousands of spans).
   */
  error(message: string, stack: string | undefined, type: string | undefined): void {
    const kept = atMost(message);
    this.exceptionType = type === undefined ? 'Error' : atMost(type);
    this.exceptionMessage = kept;
    this.exceptionStack = stack === undefined ? undefined : atMost(stack);
    this.status = STATUS_ERROR;
    this.statusMessage = kept;
  }
}

function atMost(text: string): string {
  return text.length <= SPAN_ATTRIBUTE_CHARS ? text : text.slice(0, SPAN_ATTRIBUTE_CHARS);
}

/**
 * The ids of the engine's spans (random trace ids and span ids, lowercase hex, never all zero) written into the
 * text of their `traceparent`, which is made as one flat string: the span's record and the invocation hold that
 * string and nothing else of its ids. (Ids cut from one long hex text of the random pool kept that whole text alive
 * through every span in flight, and a traceparent joined from its parts was four more strings: the in-flight
 * spans of every young-generation collection copied and promoted them all.)
 */
export class IdPool {
  private readonly pool = Buffer.allocUnsafe(POOL_BYTES);
  /** Where the next unused random byte is. */
  private at = POOL_BYTES;
  /** `00-<trace id>-<span id>-<flags>` of the span being made. */
  private readonly text = Buffer.from(`00-${'0'.repeat(32)}-${'0'.repeat(16)}-00`, 'latin1');

  /** Makes a span's ids: the trace id of its parent (32 lowercase hex digits) or a new one, and a new span id. */
  next(parentTraceId?: string): void {
    if (parentTraceId === undefined) this.random(TRACE_AT, 16);
    else this.text.write(parentTraceId, TRACE_AT, 32, 'latin1');
    this.random(SPAN_AT, 8);
  }

  /** The trace id `next` made, as a string of its own. */
  currentTraceId(): string {
    return this.text.toString('latin1', TRACE_AT, TRACE_AT + 32);
  }

  /** The `traceparent` of the ids `next` made, sampled or not, as one flat string. */
  traceparent(sampled: boolean): string {
    this.text[FLAGS_AT] = sampled ? ZERO_DIGIT + 1 : ZERO_DIGIT;
    return this.text.toString('latin1', 0, TRACEPARENT_CHARS);
  }

  /** A new trace id. */
  traceId(): string {
    this.next();
    return this.currentTraceId();
  }

  /** A new span id. */
  spanId(): string {
    this.random(SPAN_AT, 8);
    return this.text.toString('latin1', SPAN_AT, SPAN_AT + 16);
  }

  /** Writes `bytes` random bytes as hex at `at` in the text, drawn again while they are all zero. */
  private random(at: number, bytes: number): void {
    const text = this.text;
    for (;;) {
      if (this.at + bytes > POOL_BYTES) {
        randomFillSync(this.pool);
        this.at = 0;
      }
      const pool = this.pool;
      let any = 0;
      for (let i = this.at, end = this.at + bytes, o = at; i < end; i++, o += 2) {
        const v = pool[i]!;
        any |= v;
        text[o] = HEX[v >> 4]!;
        text[o + 1] = HEX[v & 15]!;
      }
      this.at += bytes;
      if (any !== 0) return;
    }
  }
}
