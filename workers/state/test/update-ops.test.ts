/** `state::update` op semantics (PROTOCOL.md §4.1): each rule checked on its own, against hand-written results. */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../src/adapters/types.js';
import { applyUpdateOps, updateMutation, type UpdateOp } from '../src/update-ops.js';

const run = (current: JsonValue | undefined, ...ops: UpdateOp[]) => applyUpdateOps(current, ops);
const codes = (current: JsonValue | undefined, ...ops: UpdateOp[]) => run(current, ...ops).errors.map((e) => e.code);

describe('set and remove (first-level field, "" = whole value)', () => {
  it('sets a field, or replaces the whole value; a dot is part of the name', () => {
    expect(run({ a: 1 }, { type: 'set', path: 'b', value: [2] }).value).toEqual({ a: 1, b: [2] });
    expect(run({ a: 1 }, { type: 'set', path: '', value: 'all' }).value).toBe('all');
    expect(run({}, { type: 'set', path: 'user.name', value: 'x' }).value).toEqual({ 'user.name': 'x' });
  });

  it('refuses a field of a non-object', () => {
    expect(codes(5, { type: 'set', path: 'a', value: 1 })).toEqual(['set.target_not_object']);
    expect(codes('s', { type: 'remove', path: 'a' })).toEqual(['remove.target_not_object']);
  });

  it('removes a field, or makes the whole value null', () => {
    expect(run({ a: 1, b: 2 }, { type: 'remove', path: 'a' }).value).toEqual({ b: 2 });
    expect(run({ a: 1 }, { type: 'remove', path: '' }).value).toBeNull();
  });
});

describe('increment and decrement', () => {
  it('adds to numbers; a missing field or key starts at 0', () => {
    expect(run({ n: 1.5 }, { type: 'increment', path: 'n', by: 2 }).value).toEqual({ n: 3.5 });
    expect(run({}, { type: 'decrement', path: 'n', by: 3 }).value).toEqual({ n: -3 });
    expect(run(undefined, { type: 'increment', path: '', by: 4 }).value).toBe(4);
    expect(run(10, { type: 'decrement', path: '', by: 4 }).value).toBe(6);
    expect(Object.is(run(undefined, { type: 'decrement', path: '', by: 0 }).value, 0)).toBe(true);
  });

  it('refuses non-numbers, null included, and non-object targets', () => {
    expect(codes({ n: 'x' }, { type: 'increment', path: 'n', by: 1 })).toEqual(['increment.not_number']);
    expect(codes({ n: null }, { type: 'decrement', path: 'n', by: 1 })).toEqual(['decrement.not_number']);
    expect(codes([1], { type: 'increment', path: 'n', by: 1 })).toEqual(['increment.target_not_object']);
    expect(codes('s', { type: 'increment', path: '', by: 1 })).toEqual(['increment.not_number']);
  });
});

describe('merge', () => {
  it('shallow-merges at the root or at a nested path, creating or replacing intermediates', () => {
    expect(run({ a: 1, b: { x: 1 } }, { type: 'merge', path: undefined, value: { b: { y: 2 }, c: 3 } }).value).toEqual({
      a: 1,
      b: { y: 2 },
      c: 3,
    });
    expect(run({ p: 5 }, { type: 'merge', path: ['p', 'q'], value: { z: 1 } }).value).toEqual({ p: { q: { z: 1 } } });
    expect(run(undefined, { type: 'merge', path: 'cfg', value: { on: true } }).value).toEqual({ cfg: { on: true } });
    expect(run({}, { type: 'merge', path: ['a.b'], value: { x: 1 } }).value).toEqual({ 'a.b': { x: 1 } });
  });

  it('leaves a non-object root as it is', () => {
    expect(run([1], { type: 'merge', path: undefined, value: { a: 1 } })).toEqual({ value: [1], errors: [] });
  });

  it('refuses non-object values, prototype keys, and too deep or too wide values', () => {
    expect(codes({}, { type: 'merge', path: undefined, value: [1] })).toEqual(['merge.value.not_an_object']);
    expect(codes({}, { type: 'merge', path: undefined, value: JSON.parse('{"__proto__": {"x": 1}}') })).toEqual([
      'merge.value.proto_polluted',
    ]);
    let deep: JsonValue = 1;
    for (let i = 0; i < 17; i++) deep = { d: deep };
    expect(codes({}, { type: 'merge', path: undefined, value: deep })).toEqual(['merge.value.too_deep']);
    const wide = Object.fromEntries(Array.from({ length: 1025 }, (_, i) => [`k${i}`, i]));
    expect(codes({}, { type: 'merge', path: undefined, value: wide })).toEqual(['merge.value.too_many_keys']);
  });
});

describe('append', () => {
  it('pushes onto arrays, concatenates strings, starts missing or null fields by value kind', () => {
    expect(run({ l: [1] }, { type: 'append', path: 'l', value: [2] }).value).toEqual({ l: [1, [2]] });
    expect(run({ s: 'ab' }, { type: 'append', path: 's', value: 'c' }).value).toEqual({ s: 'abc' });
    expect(run({}, { type: 'append', path: 's', value: 'x' }).value).toEqual({ s: 'x' });
    expect(run({}, { type: 'append', path: 'l', value: 1 }).value).toEqual({ l: [1] });
    expect(run({ n: null }, { type: 'append', path: 'n', value: 1 }).value).toEqual({ n: [1] });
    expect(run(undefined, { type: 'append', path: undefined, value: 'x' }).value).toBe('x');
    expect(run(undefined, { type: 'append', path: undefined, value: { a: 1 } }).value).toEqual([{ a: 1 }]);
  });

  it('a nested missing leaf is always an array', () => {
    expect(run({}, { type: 'append', path: ['a', 'b'], value: 'x' }).value).toEqual({ a: { b: ['x'] } });
  });

  it('refuses mismatched types and non-object roots', () => {
    expect(codes({ s: 'ab' }, { type: 'append', path: 's', value: 1 })).toEqual(['append.type_mismatch']);
    expect(codes({ o: {} }, { type: 'append', path: 'o', value: 1 })).toEqual(['append.type_mismatch']);
    expect(codes(5, { type: 'append', path: 'x', value: 1 })).toEqual(['append.target_not_object']);
  });
});

describe('paths', () => {
  it.each(['__proto__', 'constructor', 'prototype'])('refuses %s in every op', (segment) => {
    expect(
      codes(
        {},
        { type: 'set', path: segment, value: 1 },
        { type: 'merge', path: ['ok', segment], value: {} },
        { type: 'increment', path: segment, by: 1 },
        { type: 'decrement', path: segment, by: 1 },
        { type: 'append', path: [segment], value: 1 },
        { type: 'remove', path: segment },
      ),
    ).toEqual([
      'set.path.proto_polluted',
      'merge.path.proto_polluted',
      'increment.path.proto_polluted',
      'decrement.path.proto_polluted',
      'append.path.proto_polluted',
      'remove.path.proto_polluted',
    ]);
    expect(Object.getPrototypeOf(run({}, { type: 'set', path: segment, value: { polluted: true } }).value)).toBe(
      Object.prototype,
    );
  });

  it('refuses too many, empty and too long segments', () => {
    expect(codes({}, { type: 'merge', path: Array.from({ length: 33 }, () => 'a'), value: {} })).toEqual([
      'merge.path.too_deep',
    ]);
    expect(codes({}, { type: 'append', path: ['a', ''], value: 1 })).toEqual(['append.path.empty_segment']);
    expect(codes({}, { type: 'set', path: 'x'.repeat(257), value: 1 })).toEqual(['set.path.segment_too_long']);
  });
});

describe('a whole update', () => {
  it('applies ops in order, skips failing ones with their index, and never touches its input', () => {
    const current = { n: 1, l: ['a'] };
    const result = run(
      current,
      { type: 'increment', path: 'n', by: 1 },
      { type: 'append', path: 'n', value: 'x' },
      { type: 'set', path: 'n', value: 10 },
    );
    expect(result.value).toEqual({ n: 10, l: ['a'] });
    expect(result.errors).toEqual([expect.objectContaining({ op_index: 1, code: 'append.type_mismatch' })]);
    expect(current).toEqual({ n: 1, l: ['a'] });
  });

  it('writes nothing when no op succeeded (or there are none)', () => {
    expect(updateMutation([{ type: 'set', path: 'constructor', value: 1 }])({ a: 1 })).toBeUndefined();
    expect(updateMutation([])({ a: 1 })).toBeUndefined();
    expect(updateMutation([{ type: 'set', path: 'b', value: 1 }])(undefined)).toEqual({ b: 1 });
  });
});
