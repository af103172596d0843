/**
 * An engine span batch kept as its text in the span store (`EngineSpanDecoder.pack` checked it): its spans are
 * decoded when a query reaches them, and the oldest lines are dropped one by one as the store evicts them.
 */
import { decodeLine, type PackedEngineBatch } from '../otlp/decode-engine-spans.js';
import type { StoredSpan } from '../otlp/records.js';

const NEWLINE = 10;
const SPACE = 32;
const TRACE_ID_CHARS = 32;

export class PackedEngineSpans {
  /** Its spans still in the store: the last `live` lines. */
  live: number;
  /** Where the first live line starts. */
  private first: number;
  /**
   * The lines from `first` on as decoded when a query first read them (oldest first); lines dropped since then
   * are at its front, so the live spans are its last `live`.
   */
  private decoded: StoredSpan[] | undefined = undefined;

  constructor(private readonly batch: PackedEngineBatch) {
    this.live = batch.count;
    this.first = batch.first;
  }

  /** Forgets its oldest `n` spans. */
  dropOldest(n: number): void {
    const text = this.batch.text;
    for (let i = 0; i < n; i++) {
      const next = text.indexOf('\n', this.first);
      this.first = next < 0 ? text.length : next + 1;
    }
    this.live -= n;
    if (this.live === 0) this.decoded = undefined;
  }

  /** Its live spans, newest first. */
  *newest(): Generator<StoredSpan, void, undefined> {
    const spans = this.spans();
    for (let i = spans.length - 1; i >= spans.length - this.live; i--) yield spans[i]!;
  }

  /** Appends its live spans of trace `traceId` (32 lowercase hex digits), oldest first, to `out`. */
  trace(traceId: string, out: StoredSpan[]): void {
    const decoded = this.decoded;
    if (decoded !== undefined) {
      for (let i = decoded.length - this.live; i < decoded.length; i++) {
        if (decoded[i]!.trace_id === traceId) out.push(decoded[i]!);
      }
      return;
    }
    const { text, head } = this.batch;
    // the trace id is a line's first field: a hit counts only at a line start and followed by the field's end
    for (let at = text.indexOf(traceId, this.first); at >= 0; at = text.indexOf(traceId, at + 1)) {
      if (text.charCodeAt(at - 1) === NEWLINE && text.charCodeAt(at + TRACE_ID_CHARS) === SPACE) {
        out.push(decodeLine(text, at, head));
      }
    }
  }

  /** Adds the trace ids of its live spans that `skip` does not hold to `into`. */
  traceIds(into: Set<string>, skip: ReadonlyMap<string, unknown>): void {
    const text = this.batch.text;
    for (let at = this.first, n = 0; n < this.live; n++) {
      const id = text.slice(at, at + TRACE_ID_CHARS);
      if (!skip.has(id)) into.add(id);
      at = text.indexOf('\n', at) + 1;
    }
  }

  private spans(): StoredSpan[] {
    if (this.decoded === undefined) {
      const { text, head } = this.batch;
      const spans: StoredSpan[] = [];
      for (let at = this.first, n = 0; n < this.live; n++) {
        spans.push(decodeLine(text, at, head));
        at = text.indexOf('\n', at) + 1;
      }
      this.decoded = spans;
    }
    return this.decoded;
  }
}
