/**
 * The text of the engine's span batches: the payload JSON the batch writes directly is exactly the JSON of
 * `{prefix: 'SVCS', body}` for the batch's body, whatever names, services, errors and invocation ids it holds; and
 * the microsecond times are written as `String` writes them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SpanBatch } from '../src/modules/observability/span-batch.js';
import { decimal } from '../src/modules/observability/span-lines.js';
import { IdPool, SpanRecord } from '../src/modules/observability/span-record.js';

const RESOURCE = { 'service.namespace': 'shop "eu"', 'deployment.environment': 'test\n' };

const spanInput = fc.record({
  name: fc.string(),
  service: fc.string({ minLength: 1 }),
  invocationId: fc.oneof(fc.uuid(), fc.string({ minLength: 1 })),
  parent: fc.boolean(),
  startMs: fc.double({ min: 0, max: 4_102_444_800_000, noNaN: true }),
  durationMs: fc.double({ min: 0, max: 3_600_000, noNaN: true }),
  error: fc.option(fc.record({ message: fc.string(), stack: fc.option(fc.string(), { nil: undefined }) }), {
    nil: undefined,
  }),
});

describe('engine span batch text', () => {
  it('payload() is the canonical JSON of {prefix, body}, a line per span with its ids and times', () => {
    const ids = new IdPool();
    fc.assert(
      fc.property(fc.array(spanInput, { minLength: 1, maxLength: 30 }), (inputs) => {
        const spans = inputs.map((s) => {
          const span = new SpanRecord(
            `00-${ids.traceId()}-${ids.spanId()}-01`,
            s.parent ? ids.spanId() : undefined,
            s.name,
            s.service,
            s.service,
            s.invocationId,
            s.startMs,
          );
          span.endMs = s.startMs + s.durationMs;
          if (s.error === undefined) span.ok();
          else span.error(s.error.message, s.error.stack, 'Error');
          return span;
        });
        const batch = new SpanBatch({ send: () => true, resource: RESOURCE });
        const json = batch.payload(spans);
        const body = batch.serialize(spans);
        expect(json).toBe(JSON.stringify({ prefix: 'SVCS', body }));
        const lines = body.split('\n').slice(1);
        expect(lines).toHaveLength(spans.length);
        lines.forEach((line, i) => {
          const f = line.split(' ');
          const s = spans[i]!;
          expect(f).toHaveLength(14);
          expect(f.slice(0, 3)).toEqual([s.traceId, s.spanId, s.parentSpanId ?? '-']);
          expect(f.slice(7, 10)).toEqual([
            String(Math.round(s.startMs * 1000)),
            String(Math.round(s.endMs * 1000)),
            String(s.status),
          ]);
        });
      }),
    );
  });

  it('writes whole microseconds as String() does', () => {
    const buffer = Buffer.alloc(64);
    const samples = fc.oneof(
      fc.integer({ min: 0, max: 2 ** 31 }),
      fc.integer({ min: 1_600_000_000_000_000, max: 1_600_000_000_000_000 + 10 ** 9 }),
      fc.maxSafeInteger(),
      fc.double(),
      fc.constantFrom(0, 9, 10, 99_999_999, 100_000_000, 100_000_001, 1_700_000_000_000_000, Number.MAX_SAFE_INTEGER),
    );
    fc.assert(
      fc.property(samples, (us) => {
        const end = decimal(buffer, 3, us);
        expect(buffer.toString('latin1', 3, end)).toBe(String(us));
      }),
      { numRuns: 2000 },
    );
  });
});
