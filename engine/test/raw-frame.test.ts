/**
 * The raw splice of `_caller_worker_id` into a forwarded frame means exactly what re-encoding would have meant:
 * for any valid frame, parsing the spliced text gives the parsed frame with the id added to `data`; frames it
 * cannot handle safely (duplicate keys, escaped keys, non-object data) are left to the re-encoding path.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callerIntoData, decodeFrame, type InvokeFunction } from '@svc/sdk/core';
import { appendedText, forwardableText, spliceCallerId, spliceTraceparent } from '../src/transport/raw-frame.js';

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

describe('appendedText (a worker that announced appended fields)', () => {
  const NEXT = '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01';
  /** What the worker's SDK makes of a forwarded text: its decoder, then the caller's id moved into `data`. */
  const received = (text: string): InvokeFunction => {
    const decoded = decodeFrame(text);
    if (!decoded.ok) throw new Error(decoded.message);
    const msg = decoded.message as InvokeFunction;
    callerIntoData(msg);
    return msg;
  };

  it('means what re-encoding means, for arbitrary frames, whatever the caller put in the keys the engine sets', () => {
    const frame = fc.record(
      {
        type: fc.constant('invokefunction'),
        invocation_id: fc.uuid(),
        function_id: fc.string(),
        data: fc.oneof(
          fc.dictionary(
            fc.oneof(
              fc.constant('_caller_worker_id'),
              fc.string().filter((k) => k !== '__proto__'),
            ),
            fc.jsonValue(),
          ),
          fc.jsonValue(),
        ),
        // a caller's own try at the fields the engine appends
        caller_worker_id: fc.jsonValue(),
        traceparent: fc.string(),
      },
      { requiredKeys: ['type', 'invocation_id', 'function_id', 'data'] },
    );
    fc.assert(
      fc.property(frame, fc.boolean(), fc.boolean(), (f, traced, fromWorker) => {
        const text = JSON.stringify(f);
        const caller = fromWorker ? ID : undefined;
        const appended = appendedText(text, f.data, caller, traced ? { previous: undefined, next: NEXT } : undefined);
        expect(appended).toBeDefined();
        const got = received(appended!);
        // what re-encoding sends: the frame as parsed, `_caller_worker_id` set in an object `data`, the traceparent
        const expected = JSON.parse(text) as Record<string, unknown>;
        const data = expected.data;
        if (typeof data === 'object' && data !== null && !Array.isArray(data)) {
          // a call from a worker carries its id, and one from the engine (none) no id the caller made up
          if (caller !== undefined) (data as Record<string, unknown>)._caller_worker_id = caller;
        }
        expect(got.data).toEqual(data);
        expect(got.traceparent).toEqual(traced ? NEXT : expected.traceparent);
        expect(got.function_id).toBe(f.function_id);
        expect(got.invocation_id).toBe(f.invocation_id);
      }),
      { numRuns: 1000 },
    );
  });

  it('sends the text unchanged when there is nothing to add, and leaves text with trailing space to the splices', () => {
    const text = JSON.stringify({ type: 'invokefunction', invocation_id: ID, function_id: 'f', data: 'x' });
    expect(appendedText(text, 'x', ID)).toBe(text);
    // an object's caller id is set either way: null (no calling worker) rules out one the caller wrote
    const object = JSON.stringify({ type: 'invokefunction', function_id: 'f', data: {}, caller_worker_id: 'forged' });
    expect(received(appendedText(object, {}, undefined)!).data).toEqual({});
    expect(appendedText(`${text} `, 'x', ID, { previous: undefined, next: NEXT })).toBeUndefined();
    expect(appendedText(undefined, 'x', ID)).toBeUndefined();
  });

  it('reads no more of the text than its last character: a payload with a key named data is sent as it came', () => {
    const text = JSON.stringify({
      type: 'invokefunction',
      invocation_id: ID,
      function_id: 'f',
      data: { data: '"data":{}' },
    });
    const appended = appendedText(text, { data: '"data":{}' }, 'w1')!;
    expect(appended).toBe(`${text.slice(0, -1)},"caller_worker_id":"w1"}`);
    expect(received(appended).data).toEqual({ data: '"data":{}', _caller_worker_id: 'w1' });
  });
});
