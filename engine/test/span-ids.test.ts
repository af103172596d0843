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
    // 5000 × 24 bytes is five refills of the 24 KiB pool
    expect(traces.size).toBe(5000);
    expect(spans.size).toBe(5000);
  });
});
