/**
 * The text of the engine's span batches: the payload JSON the batch writes directly is exactly the JSON of
 * `{prefix: 'SVCS', body}` for the batch's body, whatever names, services, errors and invocation ids it holds; and
 * the microsecond times are written as `String` writes them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdPool, MicrosText, SpanBatch, SpanRecord } from '../src/modules/observability/span-batch.js';

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
  it('payload() is the JSON of {prefix, body} for the body serialize() writes', () => {
    const ids = new IdPool();
    fc.assert(
      fc.property(fc.array(spanInput, { minLength: 1, maxLength: 30 }), (inputs) => {
        const spans = inputs.map((s) => {
          const span = new SpanRecord(
            ids.traceId(),
            ids.spanId(),
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
        expect(JSON.parse(json)).toEqual({ prefix: 'SVCS', body: batch.serialize(spans) });
        expect(json).toBe(JSON.stringify({ prefix: 'SVCS', body: batch.serialize(spans) }));
      }),
    );
  });

  it('writes whole microseconds as String() does, across changes of their high digits', () => {
    const micros = new MicrosText();
    const samples = fc.oneof(
      fc.integer({ min: 0, max: 2 ** 31 }),
      fc.integer({ min: 1_600_000_000_000_000, max: 1_600_000_000_000_000 + 10 ** 9 }),
      fc.maxSafeInteger(),
      fc.constantFrom(0, 99_999_999, 100_000_000, 100_000_001, 1_700_000_000_000_000, Number.MAX_SAFE_INTEGER),
    );
    fc.assert(
      fc.property(fc.array(samples, { minLength: 1, maxLength: 50 }), (values) => {
        for (const us of values) expect(micros.text(us)).toBe(String(us));
      }),
    );
  });
});
