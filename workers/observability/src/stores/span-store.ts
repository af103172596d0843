/**
 * Spans in memory: at most `memory_max_spans`, the oldest evicted first. A span arrives either decoded (OTLP
 * batches, or engine batches when something needed their spans at once) or inside an engine span batch kept
 * packed (`PackedEngineSpans`: decoded when a query reads it, its oldest lines evicted one by one). Decoded spans
 * are indexed by trace id (a trace of one span by the span itself, with no list of its own); packed ones are not:
 * `trace(id)` searches the batches' text.
 */
import type { PackedEngineBatch } from '../otlp/decode-engine-spans.js';
import type { StoredSpan } from '../otlp/records.js';
import { PackedEngineSpans } from './packed-engine-spans.js';

type Entry = StoredSpan | PackedEngineSpans;

const TRACE_ID = /^[0-9a-f]{32}$/;

export class SpanStore {
  /** Oldest first, from `head` on (a moving head, compacted once half the array is dead). */
  private entries: (Entry | undefined)[] = [];
  private head = 0;
  private spans = 0;
  /** Packed batches in `entries`. */
  private packed = 0;
  private readonly byTrace = new Map<string, StoredSpan | StoredSpan[]>();
  /** `traceCount` as last computed, and the `changes` it was computed at. */
  private traces = { count: 0, at: -1 };
  private changes = 0;

  constructor(private readonly maxSpans: number) {}

  get size(): number {
    return this.spans;
  }

  get capacity(): number {
    return this.maxSpans;
  }

  /** Traces with a span in the store (packed batches are read for it, once per change of the store). */
  get traceCount(): number {
    if (this.packed === 0) return this.byTrace.size;
    if (this.traces.at !== this.changes) {
      const ids = new Set<string>();
      for (let i = this.head; i < this.entries.length; i++) {
        const e = this.entries[i];
        if (e instanceof PackedEngineSpans) e.traceIds(ids, this.byTrace);
      }
      this.traces = { count: this.byTrace.size + ids.size, at: this.changes };
    }
    return this.traces.count;
  }

  add(span: StoredSpan): void {
    const indexed = this.byTrace.get(span.trace_id);
    if (indexed === undefined) this.byTrace.set(span.trace_id, span);
    else if (Array.isArray(indexed)) indexed.push(span);
    else this.byTrace.set(span.trace_id, [indexed, span]);
    this.entries.push(span);
    this.spans++;
    this.evict();
  }

  /** An engine span batch kept packed (`EngineSpanDecoder.pack`). */
  addPacked(batch: PackedEngineBatch): void {
    if (batch.count === 0) return;
    this.entries.push(new PackedEngineSpans(batch));
    this.spans += batch.count;
    this.packed++;
    this.evict();
  }

  /** The spans of a trace, in arrival order. */
  trace(traceId: string): StoredSpan[] {
    const id = traceId.toLowerCase();
    const indexed = this.byTrace.get(id);
    if (this.packed === 0 || !TRACE_ID.test(id)) {
      if (indexed === undefined) return [];
      return Array.isArray(indexed) ? [...indexed] : [indexed];
    }
    const out: StoredSpan[] = [];
    for (let i = this.head; i < this.entries.length; i++) {
      const e = this.entries[i]!;
      if (e instanceof PackedEngineSpans) e.trace(id, out);
      else if (indexed !== undefined && e.trace_id === id) out.push(e);
    }
    return out;
  }

  /** Newest first. */
  *newest(): Generator<StoredSpan, void, undefined> {
    for (let i = this.entries.length - 1; i >= this.head; i--) {
      const e = this.entries[i]!;
      if (e instanceof PackedEngineSpans) yield* e.newest();
      else yield e;
    }
  }

  /** Empties the store; returns how many spans it held. */
  clear(): number {
    const n = this.spans;
    this.entries = [];
    this.head = 0;
    this.spans = 0;
    this.packed = 0;
    this.byTrace.clear();
    this.changes++;
    return n;
  }

  /** Evicts the oldest spans past `maxSpans`: a packed batch loses lines from its front, and goes when empty. */
  private evict(): void {
    this.changes++;
    while (this.spans > this.maxSpans) {
      const e = this.entries[this.head]!;
      if (e instanceof PackedEngineSpans) {
        const n = Math.min(e.live, this.spans - this.maxSpans);
        e.dropOldest(n);
        this.spans -= n;
        if (e.live > 0) break;
        this.packed--;
      } else {
        this.unindex(e);
        this.spans--;
      }
      this.entries[this.head++] = undefined;
      if (this.head > 1024 && this.head * 2 > this.entries.length) {
        this.entries = this.entries.slice(this.head);
        this.head = 0;
      }
    }
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
