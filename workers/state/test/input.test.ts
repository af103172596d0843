import { describe, expect, it } from 'vitest';
import { jsonValue, MAX_VALUE_DEPTH, valueField } from '../src/input.js';

function problem(value: unknown): string | undefined {
  try {
    jsonValue('state::set', value, 'value');
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

describe('state value validation', () => {
  it('accepts plain JSON and hands back the same value', () => {
    const value = { name: 'x', n: 1.5, ok: true, none: null, list: [1, 'a', [false]], deep: { more: {} } };
    expect(jsonValue('state::set', value, 'value')).toBe(value);
    expect(jsonValue('state::set', Object.assign(Object.create(null) as object, { a: 1 }), 'value')).toEqual({ a: 1 });
    expect(problem(nested(MAX_VALUE_DEPTH))).toBeUndefined();
  });

  it('names the path of the first part that JSON cannot hold', () => {
    expect(problem({ tags: ['a', 'b', Number.NaN] })).toBe(
      'INVALID_ARGUMENTS: state::set: value.tags[2] is NaN, which JSON cannot hold',
    );
    expect(problem({ a: { b: [0, { c: () => 1 }] } })).toBe(
      'INVALID_ARGUMENTS: state::set: value.a.b[1].c is a function, not a JSON value',
    );
    expect(problem([new Date(0)])).toBe('INVALID_ARGUMENTS: state::set: value[0] is a object, not a JSON value');
    expect(problem(Number.POSITIVE_INFINITY)).toBe(
      'INVALID_ARGUMENTS: state::set: value is Infinity, which JSON cannot hold',
    );
  });

  it('refuses nesting deeper than the bound, naming where it goes too deep', () => {
    const message = problem(nested(MAX_VALUE_DEPTH + 1));
    expect(message).toBe(
      `INVALID_ARGUMENTS: state::set: value${'.a'.repeat(MAX_VALUE_DEPTH + 1)} is nested deeper than ${MAX_VALUE_DEPTH} levels`,
    );
  });

  it('takes `data` as the alias of `value`, and requires one of them', () => {
    expect(valueField('state::set', { data: [1] })).toEqual([1]);
    expect(() => valueField('state::set', {})).toThrow('value is required');
  });
});
