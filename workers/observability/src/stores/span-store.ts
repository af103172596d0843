/** Spans in memory: at most `memory_max_spans` (the oldest are evicted), indexed by trace id. */
import type { StoredSpan } from '../otlp/decode-traces.js';
import { BoundedLog } from './bounded-log.js';

export class SpanStore {
  private readonly log: BoundedLog<StoredSpan>;
  private readonly byTrace = new Map<string, StoredSpan[]>();

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
    let spans = this.byTrace.get(span.trace_id);
    if (spans === undefined) {
      spans = [];
      this.byTrace.set(span.trace_id, spans);
    }
    spans.push(span);
    this.log.push(span);
  }

  trace(traceId: string): StoredSpan[] {
    return this.byTrace.get(traceId.toLowerCase()) ?? [];
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
    const spans = this.byTrace.get(span.trace_id);
    if (spans === undefined) return;
    const i = spans.indexOf(span);
    if (i >= 0) spans.splice(i, 1);
    if (spans.length === 0) this.byTrace.delete(span.trace_id);
  }
}
