import { describe, expect, it } from 'vitest';
import { applyUpdateOps } from '../src/update-ops.js';

describe('stream::update ops', () => {
  it('applies set, merge, increment, decrement, append and remove in order', () => {
    const { value, errors } = applyUpdateOps({ id: 'a', n: 1, meta: { x: 1 } }, [
      { type: 'set', path: 'title', value: 'Hi' },
      { type: 'merge', path: 'meta', value: { y: 2 } },
      { type: 'increment', path: 'n', by: 5 },
      { type: 'decrement', path: 'n', by: 2 },
      { type: 'append', path: 'tags', value: 't1' },
      { type: 'append', path: ['tags'], value: 't2' },
      { type: 'remove', path: 'meta.x' },
      { type: 'set', path: 'deep.er.still', value: true },
    ]);
    expect(errors).toEqual([]);
    expect(value).toEqual({
      id: 'a',
      n: 4,
      title: 'Hi',
      meta: { y: 2 },
      tags: ['t1', 't2'],
      deep: { er: { still: true } },
    });
  });

  it('starts from null for a missing item and replaces the root with an empty path', () => {
    expect(applyUpdateOps(undefined, [{ type: 'merge', value: { a: 1 } }]).value).toEqual({ a: 1 });
    expect(applyUpdateOps({ a: 1 }, [{ type: 'set', path: '', value: [1] }]).value).toEqual([1]);
    expect(applyUpdateOps(undefined, []).value).toBeNull();
  });

  it('reports a failing op with its index and code, keeps applying the others, and leaves no partial change', () => {
    const before = { n: 'text', list: 5, keep: 1 };
    const { value, errors } = applyUpdateOps(before, [
      { type: 'increment', path: 'n', by: 1 },
      { type: 'append', path: 'list', value: 1 },
      { type: 'set', path: 'ok', value: true },
      { type: 'set', path: '__proto__.polluted', value: true },
      { type: 'merge', path: Array.from({ length: 40 }, () => 'a'), value: {} },
      { type: 'explode' },
      { type: 'merge', value: 3 },
    ]);
    expect(errors.map((e) => [e.op_index, e.code])).toEqual([
      [0, 'increment.type_mismatch'],
      [1, 'append.type_mismatch'],
      [3, 'set.path.forbidden_segment'],
      [4, 'merge.path.too_deep'],
      [5, 'op.unknown_type'],
      [6, 'merge.value_not_object'],
    ]);
    expect(value).toEqual({ n: 'text', list: 5, keep: 1, ok: true });
    expect(before).toEqual({ n: 'text', list: 5, keep: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
