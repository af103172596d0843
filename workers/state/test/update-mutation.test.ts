/** The store mutation of `state::update`: what it writes (the op rules themselves are tested in the SDK). */
import { describe, expect, it } from 'vitest';
import type { UpdateOpError } from '@svc/sdk';
import { updateMutation } from '../src/update-mutation.js';

describe('updateMutation', () => {
  it('writes nothing when no op succeeded (or there are none)', () => {
    expect(updateMutation([{ type: 'set', path: 'constructor', value: 1 }])({ a: 1 })).toBeUndefined();
    expect(updateMutation([])({ a: 1 })).toBeUndefined();
    expect(updateMutation([{ type: 'set', path: 'b', value: 1 }])(undefined)).toEqual({ b: 1 });
  });

  it('reports the op errors of the attempt and keeps the ops for a forwarding store', () => {
    const seen: UpdateOpError[][] = [];
    const ops = [
      { type: 'increment' as const, path: 'n', by: 1 },
      { type: 'append' as const, path: 'n', value: 'x' },
    ];
    const mutate = updateMutation(ops, (errors) => seen.push(errors));
    expect(mutate({ n: 1 })).toEqual({ n: 2 });
    expect(seen).toEqual([[expect.objectContaining({ op_index: 1, code: 'append.type_mismatch' })]]);
    expect(mutate.ops).toBe(ops);
  });
});
