/**
 * Update op semantics (docs/protocol.md, "Update ops" in section 4), shared by `state::update` and `stream::update`:
 * each rule checked on its own, against hand-written results, plus the check of untrusted op shapes.
 */
import { describe, expect, it } from 'vitest';
import { applyUpdateOps, parseUpdateOp, type JsonValue, type UpdateOp } from '../src/index.js';

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
    expect(run(undefined, { type: 'merge', path: undefined, value: { a: 1 } }).value).toEqual({ a: 1 });
    expect(run({}, { type: 'merge', path: ['a.b'], value: { x: 1 } }).value).toEqual({ 'a.b': { x: 1 } });
  });

  it('leaves a non-object root as it is', () => {
    expect(run([1], { type: 'merge', path: undefined, value: { a: 1 } })).toEqual({
      value: [1],
      errors: [],
      changed: true,
    });
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

  it('applies a mix of field and path ops in order', () => {
    const { value, errors, changed } = run(
      { id: 'a', n: 1, meta: { x: 1 } },
      { type: 'set', path: 'title', value: 'Hi' },
      { type: 'increment', path: 'n', by: 5 },
      { type: 'decrement', path: 'n', by: 2 },
      { type: 'merge', path: 'meta', value: { y: 2 } },
      { type: 'merge', path: ['deep', 'er'], value: { z: true } },
      { type: 'append', path: ['list'], value: 1 },
      { type: 'append', path: ['list'], value: 2 },
      { type: 'remove', path: 'id' },
    );
    expect(errors).toEqual([]);
    expect(changed).toBe(true);
    expect(value).toEqual({ n: 4, title: 'Hi', meta: { x: 1, y: 2 }, deep: { er: { z: true } }, list: [1, 2] });
  });

  it('reports every failing op with its index and code, and leaves no partial change', () => {
    const before = { n: 'text', list: 5, keep: 1 };
    const { value, errors, changed } = run(
      before,
      { type: 'increment', path: 'n', by: 1 },
      { type: 'append', path: 'list', value: 1 },
      { type: 'set', path: 'ok', value: true },
      { type: 'set', path: '__proto__', value: true },
      { type: 'merge', path: Array.from({ length: 40 }, () => 'a'), value: {} },
      { type: 'merge', path: 'm', value: 3 },
      { type: 'merge', path: ['a', ''], value: {} },
      { type: 'merge', path: undefined, value: { constructor: 1 } },
    );
    expect(errors.map((e) => [e.op_index, e.code])).toEqual([
      [0, 'increment.not_number'],
      [1, 'append.type_mismatch'],
      [3, 'set.path.proto_polluted'],
      [4, 'merge.path.too_deep'],
      [5, 'merge.value.not_an_object'],
      [6, 'merge.path.empty_segment'],
      [7, 'merge.value.proto_polluted'],
    ]);
    expect(changed).toBe(true);
    expect(value).toEqual({ n: 'text', list: 5, keep: 1, ok: true });
    expect(before).toEqual({ n: 'text', list: 5, keep: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('says nothing changed when every op failed, or there were none', () => {
    const out = run('plain', { type: 'set', path: 'x', value: 1 });
    expect(out.errors.map((e) => e.code)).toEqual(['set.target_not_object']);
    expect(out.changed).toBe(false);
    expect(applyUpdateOps(undefined, [])).toEqual({ value: {}, errors: [], changed: false });
  });
});

describe('parseUpdateOp (untrusted input)', () => {
  const problem = (raw: unknown) => {
    const parsed = parseUpdateOp(raw, 'ops[0]');
    return parsed.ok ? undefined : parsed.problem;
  };

  it('accepts every op type and normalizes a missing set value and a null merge/append path', () => {
    expect(parseUpdateOp({ type: 'set', path: 'a' })).toEqual({
      ok: true,
      op: { type: 'set', path: 'a', value: null },
    });
    expect(parseUpdateOp({ type: 'merge', path: null, value: { a: 1 } })).toEqual({
      ok: true,
      op: { type: 'merge', path: undefined, value: { a: 1 } },
    });
    expect(parseUpdateOp({ type: 'append', path: ['a', 'b'], value: 1 })).toMatchObject({ ok: true });
    expect(parseUpdateOp({ type: 'decrement', path: '', by: -3 })).toMatchObject({ ok: true });
    expect(parseUpdateOp({ type: 'remove', path: 'x' })).toMatchObject({ ok: true });
  });

  it('refuses malformed ops, naming the field and what is expected', () => {
    expect(problem({ type: 'explode' })).toMatch(/^ops\[0\]\.type must be one of set, merge/);
    expect(problem([1])).toMatch(/^ops\[0\] must be an object/);
    expect(problem({ type: 'increment', path: 'n', by: 1.5 })).toMatch(/^ops\[0\]\.by must be an integer/);
    expect(problem({ type: 'increment', path: 'n', by: 2 ** 53 })).toMatch(/by must be an integer/);
    expect(problem({ type: 'merge', path: 'm' })).toBe('ops[0].value is required');
    expect(problem({ type: 'set', path: ['a'], value: 1 })).toMatch(/^ops\[0\]\.path must be a string/);
    expect(problem({ type: 'append', path: ['a', 1], value: 1 })).toMatch(/path must be a string or an array/);
  });
});
