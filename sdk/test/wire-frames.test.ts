/**
 * The calls and answers the SDK writes field by field (wire-frames.ts) are the JSON that `JSON.stringify` makes of
 * the same frame, for any payload, function id and optional field; and a value JSON cannot carry still throws.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeFrame, encodeFrame } from '../src/codec.js';
import { JsonText } from '../src/json-text.js';
import { InvokeFrame, ResultFrame } from '../src/wire-frames.js';

const uuid = fc.constant(null).map(() => randomUUID());
const text = fc.string({ unit: 'binary' });
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

describe('wire frames', () => {
  it('an invokefunction is written as JSON.stringify writes it', () => {
    fc.assert(
      fc.property(
        opt(uuid),
        text,
        fc.jsonValue(),
        opt(
          fc.oneof(
            fc.constant({ type: 'void' as const }),
            text.map((queue) => ({ type: 'enqueue' as const, queue })),
          ),
        ),
        opt(fc.jsonValue()),
        opt(text),
        opt(text),
        opt(fc.integer({ min: 1, max: 2 ** 31 })),
        opt(text),
        (id, functionId, data, action, metadata, traceparent, baggage, timeout, firedBy) => {
          const frame = new InvokeFrame(id, functionId, data, action, metadata, traceparent, baggage, timeout, firedBy);
          const plain = {
            type: 'invokefunction',
            invocation_id: id,
            function_id: functionId,
            data,
            action,
            metadata,
            traceparent,
            baggage,
            timeout_ms: timeout,
            fired_by: firedBy,
          };
          expect(encodeFrame(frame)).toBe(JSON.stringify(plain));
          expect(JSON.parse(encodeFrame(frame))).toEqual(JSON.parse(JSON.stringify(frame)));
        },
      ),
    );
  });

  it('an invocationresult is written as JSON.stringify writes it, and decodes as one', () => {
    fc.assert(
      fc.property(
        uuid,
        text,
        opt(fc.oneof(fc.constant(null), fc.jsonValue())),
        opt(fc.record({ code: text, message: text })),
        (id, fn, value, err) => {
          const frame = new ResultFrame(id, fn);
          if (value !== undefined) frame.result = value;
          if (err !== undefined) frame.error = err;
          const plain = { type: 'invocationresult', invocation_id: id, function_id: fn, result: value, error: err };
          expect(encodeFrame(frame)).toBe(JSON.stringify(plain));
          const decoded = decodeFrame(encodeFrame(frame));
          expect(decoded.ok).toBe(true);
        },
      ),
    );
  });

  it('a result given as JsonText is written as its text and decodes to the value it encodes', () => {
    fc.assert(
      fc.property(uuid, text, fc.jsonValue(), (id, fn, value) => {
        const json = JSON.stringify(value);
        const frame = new ResultFrame(id, fn);
        frame.result = new JsonText(json);
        const wire = encodeFrame(frame);
        expect(wire).toBe(
          JSON.stringify({ type: 'invocationresult', invocation_id: id, function_id: fn, result: value }),
        );
        const decoded = decodeFrame(wire);
        expect(decoded.ok && (decoded.message as { result?: unknown }).result).toEqual(JSON.parse(json));
      }),
    );
    // the text goes out as it was given (spacing included), and JSON.stringify sees the value it stands for
    const frame = new ResultFrame(randomUUID(), 'a::b');
    frame.result = new JsonText('{ "n" : [1, 2] }');
    expect(encodeFrame(frame)).toContain(',"result":{ "n" : [1, 2] }}');
    expect(JSON.stringify({ r: new JsonText('{ "n" : [1, 2] }') })).toBe('{"r":{"n":[1,2]}}');
  });

  it('a payload given as JsonText is written as its text and decodes to the value it encodes', () => {
    fc.assert(
      fc.property(uuid, text, fc.jsonValue(), (id, fn, value) => {
        const data = new JsonText(JSON.stringify(value));
        const frame = new InvokeFrame(id, fn, data, undefined, undefined, undefined, undefined, 5000, undefined);
        const wire = encodeFrame(frame);
        const plain = { type: 'invokefunction', invocation_id: id, function_id: fn, data: value, timeout_ms: 5000 };
        expect(wire).toBe(JSON.stringify(plain));
        const decoded = decodeFrame(wire);
        expect(decoded.ok && (decoded.message as { data?: unknown }).data).toEqual(JSON.parse(data.text));
      }),
    );
  });

  it('values JSON has no text for are left out, and ones it cannot carry throw as JSON.stringify does', () => {
    const frame = new InvokeFrame(
      undefined,
      'a::b',
      () => 1,
      undefined,
      Symbol('m'),
      undefined,
      undefined,
      5,
      undefined,
    );
    expect(encodeFrame(frame)).toBe('{"type":"invokefunction","function_id":"a::b","timeout_ms":5}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() =>
      encodeFrame(
        new InvokeFrame(undefined, 'a::b', { n: 1n }, undefined, undefined, undefined, undefined, undefined, undefined),
      ),
    ).toThrow(TypeError);
    const result = new ResultFrame(randomUUID(), 'a::b');
    result.result = cyclic;
    expect(() => encodeFrame(result)).toThrow(TypeError);
  });
});
