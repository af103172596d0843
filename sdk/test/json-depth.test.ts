import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nestedDeeperThan } from '../src/index.js';

/** The depth of a value the plain way (unbounded): a scalar 0, a container one more than its deepest part. */
const depth = (value: unknown): number =>
  typeof value === 'object' && value !== null
    ? 1 + Object.values(value).reduce((m: number, v) => Math.max(m, depth(v)), 0)
    : 0;

describe('nestedDeeperThan', () => {
  it('agrees with the depth of any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 10 }), fc.integer({ min: 0, max: 12 }), (value, limit) => {
        expect(nestedDeeperThan(value, limit)).toBe(depth(value) > limit);
      }),
    );
  });

  it('answers for nesting far past the stack without walking it', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(nestedDeeperThan(deep, 128)).toBe(true);
    expect(nestedDeeperThan([[1], { a: { b: [] } }], 4)).toBe(false);
    expect(nestedDeeperThan([[1], { a: { b: [] } }], 3)).toBe(true);
  });
});
