/**
 * Spans in memory: at most `memory_max_spans` (the oldest are evicted), indexed by trace id. A trace of one span
 * (most traces of single calls) is indexed by the span itself, with no list of its own.
 */
import type { StoredSpan } from '../otlp/decode-traces.js';
import { BoundedLog } from './bounded-log.js';

export class SpanStore {
  private readonly log: BoundedLog<StoredSpan>;
  private readonly byTrace = new Map<string, StoredSpan | StoredSpan[]>();

  constructor(maxSpans: number) {
    this.log = new BoundedLog(
      maxSpans,
      (s) => s.start_ms,
      undefined,
      (s) => this.unindex(s),
    );
  }

  get size(): number {
    return this.log.size;
  }

  get capacity(): number {
    return this.log.capacity;
  }

  get traceCount(): number {
    return this.byTrace.size;
  }

  add(span: StoredSpan): void {
    const indexed = this.byTrace.get(span.trace_id);
    if (indexed === undefined) this.byTrace.set(span.trace_id, span);
    else if (Array.isArray(indexed)) indexed.push(span);
    else this.byTrace.set(span.trace_id, [indexed, span]);
    this.log.push(span);
  }

  trace(traceId: string): StoredSpan[] {
    const indexed = this.byTrace.get(traceId.toLowerCase());
    if (indexed === undefined) return [];
    return Array.isArray(indexed) ? [...indexed] : [indexed];
  }

  /** Newest first. */
  newest(): IterableIterator<StoredSpan> {
    return this.log.newest();
  }

  clear(): number {
    this.byTrace.clear();
    return this.log.clear();
  }

  private unindex(span: StoredSpan): void {
    const indexed = this.byTrace.get(span.trace_id);
    if (indexed === span) {
      this.byTrace.delete(span.trace_id);
    } else if (Array.isArray(indexed)) {
      const i = indexed.indexOf(span);
      if (i >= 0) indexed.splice(i, 1);
      if (indexed.length === 0) this.byTrace.delete(span.trace_id);
    }
  }
}
