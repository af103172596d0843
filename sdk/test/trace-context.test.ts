import { describe, expect, it } from 'vitest';
import { childTraceparent, newTraceparent, parseTraceparent } from '../src/trace-context.js';

const PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const SHAPE = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

describe('W3C traceparent', () => {
  it('parses a valid value and rejects malformed or all-zero ones', () => {
    expect(parseTraceparent(PARENT)).toEqual({
      version: '00',
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      flags: '01',
    });
    for (const bad of [
      undefined,
      '',
      'garbage',
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331',
      '00-00000000000000000000000000000000-b7ad6b7169203331-01',
      '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01',
      'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      '00-0af7651916cd43dd8448eb211c80319z-b7ad6b7169203331-01',
    ]) {
      expect(parseTraceparent(bad)).toBeUndefined();
    }
  });

  it('a child keeps the trace id and flags with a new span id', () => {
    const child = childTraceparent(PARENT);
    expect(child).toMatch(SHAPE);
    const p = parseTraceparent(child);
    expect(p?.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(p?.flags).toBe('01');
    expect(p?.spanId).not.toBe('b7ad6b7169203331');
    expect(parseTraceparent(childTraceparent(PARENT))?.spanId).not.toBe(p?.spanId);
  });

  it('starts a new sampled trace when there is no valid parent', () => {
    const a = newTraceparent();
    const b = childTraceparent('not-a-traceparent');
    expect(a).toMatch(SHAPE);
    expect(b).toMatch(SHAPE);
    expect(a.endsWith('-01')).toBe(true);
    expect(parseTraceparent(a)?.traceId).not.toBe(parseTraceparent(b)?.traceId);
  });
});
