/** The frame codec: what it accepts, what it refuses and why, at the edge where untrusted text becomes a message. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeFrame, encodeFrame, isUuid } from '../src/index.js';
import { decodeValue, type DecodeResult } from '../src/codec.js';
import { InvokeFrame } from '../src/wire-frames.js';

const ID = 'dce43cd7-7140-4cbc-80e5-92baea79a88b';

describe('isUuid', () => {
  it.each([
    [ID, true],
    [ID.toUpperCase(), true],
    [ID.slice(0, 35), false],
    [ID.replace('-', 'x'), false],
    ['g' + ID.slice(1), false],
    ['not-a-uuid', false],
    [42, false],
    [null, false],
  ])('%s → %s', (value, expected) => {
    expect(isUuid(value)).toBe(expected);
  });

  it('agrees with the 8-4-4-4-12 pattern for any 36 characters', () => {
    const pattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    const char = fc.constantFrom(...'0123456789abcdefABCDEF-gG/:`@é\u0100\u0130'.split(''));
    const mostlyUuid = fc.array(char, { minLength: 36, maxLength: 36 }).map((cs) => {
      for (const i of [8, 13, 18, 23]) if (cs[i] !== 'g') cs[i] = '-';
      return cs.join('');
    });
    fc.assert(
      fc.property(
        fc.oneof(mostlyUuid, fc.string({ minLength: 36, maxLength: 36 })),
        (v) => isUuid(v) === pattern.test(v),
      ),
    );
  });
});

describe('decodeFrame', () => {
  it('accepts the frames iii-sdk sends, ignoring extra keys such as message_type', () => {
    const frame = JSON.stringify({
      type: 'registertrigger',
      function_id: 'demo::echo',
      config: { api_path: '/echo' },
      id: ID,
      message_type: 'registertrigger',
      trigger_type: 'http',
    });
    const out = decodeFrame(frame);
    expect(out.ok).toBe(true);
    expect(out.ok && out.message.type).toBe('registertrigger');
  });

  it('accepts a void invoke without invocation_id and an enqueue action', () => {
    expect(decodeFrame('{"type":"invokefunction","function_id":"f","data":1,"action":{"type":"void"}}').ok).toBe(true);
    const enqueue = {
      type: 'invokefunction',
      invocation_id: ID,
      function_id: 'f',
      data: {},
      action: { type: 'enqueue', queue: 'q' },
    };
    expect(decodeFrame(JSON.stringify(enqueue)).ok).toBe(true);
  });

  it.each([
    ['', 'empty'],
    ['   ', 'empty'],
    ['{"type":', 'invalid_json'],
    ['[1,2]', 'not_an_object'],
    ['{"no":"type"}', 'not_an_object'],
    ['{"type":"launchmissiles"}', 'unknown_type'],
    ['{"type":"invokefunction","invocation_id":"123","function_id":"f","data":{}}', 'invalid_field'],
    ['{"type":"invokefunction","data":{}}', 'invalid_field'],
    ['{"type":"invokefunction","function_id":"f","action":{"type":"enqueue"}}', 'invalid_field'],
    ['{"type":"invokefunction","function_id":"f","timeout_ms":-5}', 'invalid_field'],
    ['{"type":"registerfunction","id":""}', 'invalid_field'],
    [`{"type":"invocationresult","invocation_id":"${ID}","function_id":"f","error":"boom"}`, 'invalid_field'],
  ])('refuses %j as %s, naming the problem', (text, reason) => {
    const out = decodeFrame(text);
    expect(out.ok).toBe(false);
    expect(!out.ok && out.reason).toBe(reason);
    expect(!out.ok && out.message.length).toBeGreaterThan(0);
  });

  it('names the offending field', () => {
    const out = decodeFrame('{"type":"invokefunction","invocation_id":"nope","function_id":"f","data":{}}');
    expect(!out.ok && out.message).toBe('invokefunction: missing or invalid field "invocation_id"');
  });

  it('refuses a registration whose field nests deeper than 128 levels, naming it', () => {
    const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    const deep = nested(10_000); // JSON.parse reads it; JSON.stringify overflows writing it again
    const fn = decodeFrame(`{"type":"registerfunction","id":"f","request_format":${deep}}`);
    expect(!fn.ok && fn.message).toBe('registerfunction: field "request_format" is nested deeper than 128 levels');
    const trigger = decodeFrame(
      `{"type":"registertrigger","id":"t","trigger_type":"http","function_id":"f","config":{"x":${deep}}}`,
    );
    expect(!trigger.ok && trigger.message).toBe('registertrigger: field "config" is nested deeper than 128 levels');
    const type = decodeFrame(`{"type":"registertriggertype","id":"k","trigger_request_format":${nested(129)}}`);
    expect(!type.ok && type.message).toBe(
      'registertriggertype: field "trigger_request_format" is nested deeper than 128 levels',
    );
    expect(decodeFrame(`{"type":"registerfunction","id":"f","metadata":${nested(128)}}`).ok).toBe(true);
  });

  it('round-trips through encodeFrame, dropping undefined fields', () => {
    const text = encodeFrame({ type: 'invocationresult', invocation_id: ID, function_id: 'f', result: undefined });
    expect(text).toBe(`{"type":"invocationresult","invocation_id":"${ID}","function_id":"f"}`);
    expect(decodeFrame(text).ok).toBe(true);
  });
});

/**
 * Answers without a value (or with null) are read without JSON.parse when written in this SDK's layout: whatever
 * the text, `decodeFrame` must give what parsing it gives (the same message, or the same refusal).
 */
describe('decodeFrame on answers without a value', () => {
  const parsed = (text: string): DecodeResult => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      return { ok: false, reason: 'invalid_json', message: (err as Error).message };
    }
    return decodeValue(value);
  };
  const agree = (text: string): void => {
    const out = decodeFrame(text);
    const expected = parsed(text);
    expect(out.ok, text).toBe(expected.ok);
    if (out.ok && expected.ok) {
      expect(out.message, text).toStrictEqual(expected.message);
      expect(Object.keys(out.message), text).toEqual(Object.keys(expected.message));
    } else if (!out.ok && !expected.ok) expect(out.reason, text).toBe(expected.reason);
  };

  it('reads the answers ResultFrame writes, with no value and with null', () => {
    for (const fid of ['f', 'events::on-3', '', 'ünïcode::ƒ', 'a b']) {
      const none = encodeFrame({ type: 'invocationresult', invocation_id: ID, function_id: fid });
      expect(decodeFrame(none)).toStrictEqual({
        ok: true,
        message: { type: 'invocationresult', invocation_id: ID, function_id: fid },
      });
      const empty = encodeFrame({ type: 'invocationresult', invocation_id: ID, function_id: fid, result: null });
      expect(decodeFrame(empty)).toStrictEqual({
        ok: true,
        message: { type: 'invocationresult', invocation_id: ID, function_id: fid, result: null },
      });
    }
  });

  it.each([
    `{"type":"invocationresult","invocation_id":"${ID}","function_id":"a\\"b"}`,
    `{"type":"invocationresult","invocation_id":"${ID}","function_id":"a\\u0041"}`,
    `{"type":"invocationresult","invocation_id":"${ID}","function_id":"a\tb"}`,
    `{"type":"invocationresult","invocation_id":"${ID}","function_id":"f","result":"x"}`,
    `{"type":"invocationresult","invocation_id":"${ID}","function_id":"f","error":"boom"}`,
    `{"type":"invocationresult","invocation_id":"${ID}","function_id":"f","invocation_id":"${ID}"}`,
    `{"type":"invocationresult","invocation_id":"${ID}","function_id":"f","x":"","result":null}`,
    `{"type":"invocationresult","invocation_id":"${ID}","function_id":","result":null}`,
    `{"type":"invocationresult","invocation_id":"${ID}","function_id":"}`,
    `{"type":"invocationresult","invocation_id":"${ID.replace('-', 'x')}","function_id":"f"}`,
    `{"type":"invocationresult","invocation_id":"${ID}x","function_id":"f"}`,
    `{"type":"invocationresult","invocation_id":"${ID}","function_id":"f"} `,
    `{"type":"invocationresult","invocation_id":"${ID}","function_id": "f"}`,
  ])('gives what parsing gives for %j', (text) => agree(text));

  it('gives what parsing gives for any function id, and for the text cut or changed anywhere', () => {
    const functionId = fc.string({ unit: 'binary', maxLength: 12 });
    const answer = fc.tuple(functionId, fc.constantFrom('none', 'null')).map(([fid, result]) =>
      encodeFrame({
        type: 'invocationresult',
        invocation_id: ID,
        function_id: fid,
        ...(result === 'null' ? { result: null } : {}),
      }),
    );
    const noise = fc.constantFrom('"', '\\', '}', ',', ' ', 'x', '\u0001', ':', '{');
    const changed = fc
      .tuple(answer, fc.nat(), fc.nat({ max: 3 }), fc.array(noise, { maxLength: 3 }))
      .map(([text, at, cut, add]) => {
        const i = at % (text.length + 1);
        return text.slice(0, i) + add.join('') + text.slice(Math.min(text.length, i + cut));
      });
    fc.assert(
      fc.property(fc.oneof(answer, changed), (text) => agree(text)),
      { numRuns: 3000 },
    );
  });
});

describe('decodeValue on calls this SDK built', () => {
  it('accepts and refuses an InvokeFrame exactly as the same fields in a plain object', () => {
    const anyValue = fc.oneof(fc.constant(undefined), fc.constant(null), fc.string(), fc.integer(), fc.boolean());
    const action = fc.oneof(
      anyValue,
      fc.constant({ type: 'void' }),
      fc.constant({ type: 'enqueue', queue: 'q' }),
      fc.constant({ type: 'enqueue' }),
      fc.constant({ type: 'other' }),
    );
    const timeout = fc.oneof(anyValue, fc.constant(0), fc.constant(-5), fc.double(), fc.constant(30_000));
    fc.assert(
      fc.property(
        fc.oneof(fc.constant(undefined), fc.constant(null), fc.constant(ID), fc.string()),
        fc.oneof(fc.string(), anyValue),
        action,
        anyValue,
        anyValue,
        timeout,
        anyValue,
        (invocationId, functionId, act, traceparent, baggage, timeoutMs, firedBy) => {
          const frame = new InvokeFrame(
            invocationId as string | undefined,
            functionId as string,
            { a: 1 },
            act as InvokeFrame['action'],
            undefined,
            traceparent as string | undefined,
            baggage as string | undefined,
            timeoutMs as number | undefined,
            firedBy as string | undefined,
          );
          const fromFrame = decodeValue(frame);
          const fromObject = decodeValue({ ...frame });
          expect(fromFrame.ok).toBe(fromObject.ok);
          if (fromFrame.ok) expect(fromFrame.message).toBe(frame);
          else expect(fromFrame).toEqual(fromObject);
        },
      ),
    );
  });
});
