/**
 * The raw splice of `_caller_worker_id` into a forwarded frame means exactly what re-encoding would have meant:
 * for any valid frame, parsing the spliced text gives the parsed frame with the id added to `data`; frames it
 * cannot handle safely (duplicate keys, escaped keys, non-object data) are left to the re-encoding path.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forwardableText, spliceCallerId, spliceTraceparent } from '../src/transport/raw-frame.js';

const ID = '6f1c2a9e-0000-4000-8000-000000000001';

describe('spliceCallerId', () => {
  it('is equivalent to adding the key and re-encoding, for arbitrary frames', () => {
    const frame = fc.record({
      type: fc.constant('invokefunction'),
      invocation_id: fc.uuid(),
      function_id: fc.string(),
      data: fc.dictionary(
        fc.string().filter((k) => k !== '_caller_worker_id' && k !== '__proto__'),
        fc.jsonValue(),
      ),
      metadata: fc.option(fc.jsonValue(), { nil: undefined }),
      traceparent: fc.option(fc.string(), { nil: undefined }),
    });
    fc.assert(
      fc.property(frame, fc.boolean(), (f, pretty) => {
        const text = JSON.stringify(f, null, pretty ? 2 : undefined);
        const spliced = spliceCallerId(text, ID);
        expect(spliced).toBeDefined();
        const expected = JSON.parse(text) as { data: Record<string, unknown> };
        expected.data._caller_worker_id = ID;
        expect(JSON.parse(spliced!)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('handles data anywhere among the keys, and an empty object', () => {
    const text = '{"data":{},"type":"invokefunction","function_id":"f","metadata":{"data":{"x":"}"}}}';
    expect(JSON.parse(spliceCallerId(text, ID)!)).toEqual({
      data: { _caller_worker_id: ID },
      type: 'invokefunction',
      function_id: 'f',
      metadata: { data: { x: '}' } },
    });
  });

  it('declines frames it cannot splice safely', () => {
    expect(spliceCallerId('{"data":{"a":1},"data":{"b":2}}', ID)).toBeUndefined();
    expect(spliceCallerId('{"d\\u0061ta":{"a":1},"data":{"b":2}}', ID)).toBeUndefined();
    expect(spliceCallerId('{"data":{"a":1},"d\\u0061ta":{"b":2}}', ID)).toBeUndefined();
    expect(spliceCallerId('{"type":"x","data":{"a":1},"metadata":{"data":2},"data":{"b":2}}', ID)).toBeUndefined();
    expect(spliceCallerId('{"data":[1,2]}', ID)).toBeUndefined();
    expect(spliceCallerId('{"data":"text"}', ID)).toBeUndefined();
    expect(spliceCallerId('{"type":"invokefunction"}', ID)).toBeUndefined();
    expect(spliceCallerId('[]', ID)).toBeUndefined();
  });
});

describe('spliceCallerId where "data" is spelled in other places', () => {
  it('adds the id to the data JSON.parse sees, or declines, whatever keys and strings spell data', () => {
    // keys and strings made of pieces that spell (parts of) the data key, so its search meets near misses
    const piece = fc.constantFrom('data', '"data":', 'data":', 'meta', 'x', '"', '\\', ':', ' ', 'ta":');
    const word = fc.array(piece, { maxLength: 4 }).map((parts) => parts.join(''));
    const key = fc.oneof(fc.constantFrom('data', 'metadata', 'xdata', 'dat', 'ata'), word);
    const value = fc.oneof(word, fc.jsonValue({ maxDepth: 1 }), fc.dictionary(key, word, { maxKeys: 2 }));
    const entries = fc.array(fc.tuple(key, value), { maxLength: 4 });
    const data = fc.dictionary(
      key.filter((k) => k !== '_caller_worker_id' && k !== '__proto__'),
      value,
      {
        maxKeys: 3,
      },
    );
    const callers = fc.constantFrom(ID, 'worker "2"', 'w\\3');
    fc.assert(
      fc.property(entries, data, entries, callers, (before, d, after, caller) => {
        const parts = [
          ...before.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`),
          `"data":${JSON.stringify(d)}`,
          ...after.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`),
        ];
        const text = `{${parts.join(',')}}`;
        const spliced = spliceCallerId(text, caller);
        if (spliced === undefined) return; // left to re-encoding
        const expected = JSON.parse(text) as { data: Record<string, unknown> };
        expect(typeof expected.data).toBe('object');
        expected.data._caller_worker_id = caller;
        expect(JSON.parse(spliced)).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('still splices a frame whose other keys and strings only contain the word', () => {
    const text = `{"type":"invokefunction","metadata":{"x":"data\\":"},"function_id":"f","data":{"s":"metadata"},"q":"data"}`;
    expect(JSON.parse(spliceCallerId(text, 'w1')!)).toEqual({
      type: 'invokefunction',
      metadata: { x: 'data":' },
      function_id: 'f',
      data: { s: 'metadata', _caller_worker_id: 'w1' },
      q: 'data',
    });
  });
});

describe('spliceCallerId with escapes', () => {
  it('skips strings whose content holds escaped quotes and backslashes', () => {
    const frame = {
      type: 'invokefunction',
      function_id: 'a"b\\',
      metadata: { data: 'x\\"y\\\\', q: '\\' },
      data: { s: 'he said "hi" \\ "\\"', t: '\\\\' },
      after: '"data":{}',
    };
    const spliced = spliceCallerId(JSON.stringify(frame), ID);
    expect(JSON.parse(spliced!)).toEqual({ ...frame, data: { ...frame.data, _caller_worker_id: ID } });
  });
});

describe('spliceTraceparent', () => {
  const NEXT = '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01';
  const PREV = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

  it('sets the traceparent exactly as re-encoding would, for arbitrary frames with or without one', () => {
    const frame = fc.record({
      type: fc.constant('invokefunction'),
      invocation_id: fc.uuid(),
      function_id: fc.string(),
      data: fc.jsonValue(),
      traceparent: fc.option(fc.constant(PREV), { nil: undefined }),
    });
    fc.assert(
      fc.property(frame, (f) => {
        const text = JSON.stringify(f);
        const spliced = spliceTraceparent(text, f.traceparent, NEXT);
        if (spliced === undefined) return; // refused (the key elsewhere in the frame): re-encoded instead
        expect(JSON.parse(spliced)).toEqual(JSON.parse(JSON.stringify({ ...f, traceparent: NEXT })));
      }),
    );
  });

  it('refuses a frame that carries the key twice', () => {
    const text = `{"traceparent":"${PREV}","data":{"traceparent":"${PREV}"}}`;
    expect(spliceTraceparent(text, PREV, NEXT)).toBeUndefined();
  });
});

describe('forwardableText', () => {
  const NEXT = '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01';
  const PREV = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

  it('sets the traceparent and the caller id exactly as the two splices one after the other do', () => {
    const frame = fc.record({
      type: fc.constant('invokefunction'),
      invocation_id: fc.uuid(),
      function_id: fc.string(),
      data: fc.oneof(
        fc.dictionary(
          fc.string().filter((k) => k !== '__proto__'),
          fc.jsonValue(),
        ),
        fc.jsonValue(),
      ),
      traceparent: fc.option(fc.constantFrom(PREV, 'not-a-traceparent'), { nil: undefined }),
    });
    fc.assert(
      fc.property(frame, fc.boolean(), (f, pretty) => {
        const text = JSON.stringify(f, null, pretty ? 2 : undefined);
        const previous = f.traceparent === PREV ? PREV : undefined;
        const both = forwardableText(text, f.data, ID, { previous, next: NEXT });
        const traced = spliceTraceparent(text, previous, NEXT);
        const data: unknown = f.data;
        const accepts =
          typeof data === 'object' && data !== null && !Array.isArray(data) && !('_caller_worker_id' in data);
        const stepwise = traced === undefined || !accepts ? undefined : spliceCallerId(traced, ID);
        expect(both).toBe(stepwise);
        if (both !== undefined) {
          // what re-encoding would send: the frame as parsed (so -0 reads back as 0), with both fields set
          const expected = JSON.parse(text) as { traceparent?: string; data: Record<string, unknown> };
          expected.traceparent = NEXT;
          expected.data._caller_worker_id = ID;
          expect(JSON.parse(both)).toEqual(expected);
        }
      }),
      { numRuns: 500 },
    );
  });
});
