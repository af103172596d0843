import { describe, expect, it } from 'vitest';
import { applyUpdateOps, updateOpSchema, type UpdateOp } from '../src/update-ops.js';

const ops = (list: unknown[]): UpdateOp[] => list.map((op) => updateOpSchema.parse(op));

describe('stream::update ops (the rules of state::update)', () => {
  it('applies field ops on first-level names (a dot is part of the name) and walks merge/append paths', () => {
    const { value, errors, changed } = applyUpdateOps(
      { id: 'a', n: 1, meta: { x: 1 } },
      ops([
        { type: 'set', path: 'title', value: 'Hi' },
        { type: 'set', path: 'a.b', value: 1 },
        { type: 'increment', path: 'n', by: 5 },
        { type: 'decrement', path: 'n', by: 2 },
        { type: 'merge', path: 'meta', value: { y: 2 } },
        { type: 'merge', path: ['deep', 'er'], value: { z: true } },
        { type: 'append', path: 'tags', value: 't1' },
        { type: 'append', path: ['list'], value: 1 },
        { type: 'append', path: ['list'], value: 2 },
        { type: 'append', path: ['nested', 'items'], value: 'x' },
        { type: 'remove', path: 'id' },
      ]),
    );
    expect(errors).toEqual([]);
    expect(changed).toBe(true);
    expect(value).toEqual({
      n: 4,
      title: 'Hi',
      'a.b': 1,
      meta: { x: 1, y: 2 },
      deep: { er: { z: true } },
      tags: 't1',
      list: [1, 2],
      nested: { items: ['x'] },
    });
  });

  it('starts a missing item from {} and replaces the root with an empty path', () => {
    expect(applyUpdateOps(undefined, ops([{ type: 'merge', value: { a: 1 } }])).value).toEqual({ a: 1 });
    expect(applyUpdateOps(undefined, ops([{ type: 'increment', path: '', by: 2 }])).value).toBe(2);
    expect(applyUpdateOps({ a: 1 }, ops([{ type: 'set', path: '', value: [1] }])).value).toEqual([1]);
    expect(applyUpdateOps(undefined, [])).toMatchObject({ changed: false });
  });

  it('reports each failing op with its index and code, applies the others, and leaves no partial change', () => {
    const before = { n: 'text', list: 5, keep: 1 };
    const { value, errors, changed } = applyUpdateOps(
      before,
      ops([
        { type: 'increment', path: 'n', by: 1 },
        { type: 'append', path: 'list', value: 1 },
        { type: 'set', path: 'ok', value: true },
        { type: 'set', path: '__proto__', value: true },
        { type: 'merge', path: Array.from({ length: 40 }, () => 'a'), value: {} },
        { type: 'merge', path: 'm', value: 3 },
        { type: 'merge', path: ['a', ''], value: {} },
        { type: 'merge', value: { constructor: 1 } },
      ]),
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

  it('says nothing changed when every op failed, and field ops need an object', () => {
    const out = applyUpdateOps('plain', ops([{ type: 'set', path: 'x', value: 1 }]));
    expect(out.errors[0]?.code).toBe('set.target_not_object');
    expect(out.changed).toBe(false);
  });

  it('refuses malformed ops at the input', () => {
    expect(updateOpSchema.safeParse({ type: 'explode' }).success).toBe(false);
    expect(updateOpSchema.safeParse({ type: 'increment', path: 'n', by: 1.5 }).success).toBe(false);
    expect(updateOpSchema.safeParse({ type: 'merge', path: 'm' }).success).toBe(false);
  });
});
