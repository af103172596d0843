/** Trace and span ids of the engine's spans: W3C-shaped (lowercase hex, never all zero) and unique across refills. */
import { describe, expect, it } from 'vitest';
import { IdPool } from '../src/modules/observability/span-record.js';

describe('IdPool', () => {
  it('gives 32- and 16-digit lowercase hex ids, none repeated, across many refills of its pool', () => {
    const pool = new IdPool();
    const traces = new Set<string>();
    const spans = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const t = pool.traceId();
      const s = pool.spanId();
      expect(t).toMatch(/^[0-9a-f]{32}$/);
      expect(s).toMatch(/^[0-9a-f]{16}$/);
      expect(t).not.toBe('0'.repeat(32));
      expect(s).not.toBe('0'.repeat(16));
      traces.add(t);
      spans.add(s);
    }
    // 5000 × 24 bytes is about thirty refills of the 4 KiB pool
    expect(traces.size).toBe(5000);
    expect(spans.size).toBe(5000);
  });

  it("makes a traceparent of the ids: a new trace, or the parent's trace with a new span, sampled or not", () => {
    const pool = new IdPool();
    pool.next();
    const root = pool.traceparent(true);
    expect(root).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(pool.currentTraceId()).toBe(root.slice(3, 35));

    const parentTrace = root.slice(3, 35);
    pool.next(parentTrace);
    const child = pool.traceparent(false);
    expect(child).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    expect(child.slice(3, 35)).toBe(parentTrace);
    expect(child.slice(36, 52)).not.toBe(root.slice(36, 52));
    // each traceparent is a string of its own: making the next one leaves the earlier ones as they were
    expect(root).toMatch(/-01$/);
    expect(root.slice(3, 35)).toBe(parentTrace);

    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      pool.next();
      seen.add(pool.traceparent(true));
    }
    expect(seen.size).toBe(1000);
  });
});
