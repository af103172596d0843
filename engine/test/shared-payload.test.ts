/**
 * A fan-out's shared payload: frames written with its one JSON text parse to exactly what JSON.stringify of the
 * whole message gives, and an object is only treated as shared while the fan-out runs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  encodeInvoke,
  release,
  sendEncoded,
  share,
  sharedText,
  shareWhileSending,
} from '../src/transport/shared-payload.js';

const frame = (data: unknown) => ({
  type: 'invokefunction' as const,
  invocation_id: '22222222-2222-4222-8222-222222222222',
  function_id: 'sub::on',
  data,
  metadata: undefined,
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  baggage: undefined,
});

describe('shared payload', () => {
  it('encodes a frame carrying a shared payload exactly as JSON.stringify does', () => {
    for (const data of [{ a: 1, s: 'x"y\\u2028', nested: [1, { b: null }] }, [1, 'two'], {}]) {
      share(data);
      try {
        expect(encodeInvoke(frame(data))).toBe(JSON.stringify(frame(data)));
      } finally {
        release(data);
      }
    }
  });

  it('gives the same text as JSON.stringify for any JSON payload, shared or not, ids, metadata and trace context', () => {
    const payload = fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.array(fc.jsonValue()), fc.jsonValue());
    const text = fc.option(fc.string(), { nil: undefined });
    const invocationId = fc.oneof(fc.uuid(), fc.string(), fc.constant(null), fc.constant(undefined));
    const metadata = fc.option(fc.jsonValue(), { nil: undefined });
    fc.assert(
      fc.property(
        payload,
        fc.boolean(),
        invocationId,
        fc.string(),
        metadata,
        text,
        text,
        (data, shared, id, functionId, meta, traceparent, baggage) => {
          const message = {
            ...frame(data),
            invocation_id: id,
            function_id: functionId,
            metadata: meta,
            traceparent,
            baggage,
          };
          if (shared) share(data);
          try {
            return encodeInvoke(message) === JSON.stringify(message);
          } finally {
            release(data);
          }
        },
      ),
    );
  });

  it('writes each trace context of a run of frames as JSON.stringify does, the repeated one and those between', () => {
    const shared = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const others = [shared, 'needs "escaping"\n', shared, '', 'a-b.c:d_e', shared, `${shared.slice(0, 54)}2`, shared];
    for (const traceparent of others) {
      const message = { ...frame({ n: 1 }), traceparent };
      expect(encodeInvoke(message)).toBe(JSON.stringify(message));
    }
  });

  it('leaves out what JSON.stringify leaves out, and writes the extension fields of a call', () => {
    const message = { ...frame(undefined), metadata: () => 1, timeout_ms: 5000, fired_by: 'sub-1' };
    expect(JSON.parse(encodeInvoke(message))).toEqual({
      type: 'invokefunction',
      invocation_id: '22222222-2222-4222-8222-222222222222',
      function_id: 'sub::on',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      timeout_ms: 5000,
      fired_by: 'sub-1',
    });
    expect(() => encodeInvoke(frame({ n: 1n }))).toThrow(TypeError);
  });

  it('serialises a shared payload once, and an unshared one as usual', () => {
    const data = { n: 1 };
    expect(sharedText(data)).toBeUndefined();
    share(data);
    expect(sharedText(data)).toBe('{"n":1}');
    expect(sharedText(data)).toBe(sharedText(data));
    release(data);
    data.n = 2;
    expect(encodeInvoke(frame(data))).toBe(JSON.stringify(frame(data)));
  });

  it('shares the payload only until the microtasks its sends queued have run', async () => {
    const data = { n: 1 };
    const seen: Array<string | undefined> = [];
    shareWhileSending(data, () => {
      queueMicrotask(() => seen.push(sharedText(data)));
      queueMicrotask(() => seen.push(sharedText(data)));
    });
    await Promise.resolve();
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(['{"n":1}', '{"n":1}']);
    expect(sharedText(data)).toBeUndefined();
  });

  it("a sender's own encoding of its data is used while it sends, then forgotten", async () => {
    const jobs = [
      { queue: 'q', data: { n: 1 } },
      { queue: 'q', data: null },
    ];
    const data = { jobs };
    const own = JSON.stringify(data, null, 1); // spaced: distinguishable from what JSON.stringify would write
    const written: string[] = [];
    sendEncoded(data, own, () => written.push(encodeInvoke(frame(data))));
    expect(written[0]).toContain(`"data":${own}`);
    expect(JSON.parse(written[0]!)).toEqual(JSON.parse(JSON.stringify(frame(data))));
    await Promise.resolve();
    expect(sharedText(data)).toBeUndefined();
  });
});
