import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { globMatcher, globMatches } from '../src/index.js';

/** The plain reading of a glob: a regular expression (fine for the short inputs of a property test). */
const viaRegExp = (pattern: string, text: string): boolean =>
  new RegExp(
    `^${[...pattern].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/, '\\$&'))).join('')}$`,
    's',
  ).test(text);

/** Short strings over a small alphabet, so that patterns and texts share characters and stars have work to do. */
const text = fc.string({ unit: fc.constantFrom('a', 'b', ':', '.', '\n'), maxLength: 12 });
const pattern = fc.string({ unit: fc.constantFrom('a', 'b', ':', '.', '*', '?'), maxLength: 8 });

describe('globMatches', () => {
  it('agrees with the regular expression of the pattern on every pattern and text', () => {
    fc.assert(
      fc.property(pattern, text, (p, t) => {
        expect(globMatches(p, t)).toBe(viaRegExp(p, t));
        expect(globMatcher(p)(t)).toBe(viaRegExp(p, t));
      }),
      { numRuns: 5_000 },
    );
  });

  it('reads the shapes users write', () => {
    expect(globMatcher('orders::*')('orders::create')).toBe(true);
    expect(globMatcher('orders::*')('order::create')).toBe(false);
    expect(globMatcher('keep::?')('keep::a')).toBe(true);
    expect(globMatcher('keep::?')('keep::ab')).toBe(false);
    expect(globMatcher('*::create')('orders::create')).toBe(true);
    expect(globMatcher('svc-*-worker')('svc-http-worker')).toBe(true);
    expect(globMatcher('exact')('exact')).toBe(true);
    expect(globMatcher('exact')('exactly')).toBe(false);
    expect(globMatcher('*')('')).toBe(true);
    expect(globMatcher('')('')).toBe(true);
    expect(globMatcher('')('a')).toBe(false);
    expect(globMatcher('a.b')('axb')).toBe(false); // only * and ? are wildcards
  });

  it('answers a pattern that makes a regular expression backtrack without end', () => {
    // `^(.*a){30}.*!$` on 200 `a`s tries every way of placing 30 `a`s: far longer than this test may run.
    const hostile = `${'*a'.repeat(30)}!`;
    const long = 'a'.repeat(200);
    expect(globMatches(hostile, long)).toBe(false);
    expect(globMatches(hostile, `${long}!`)).toBe(true);
    expect(globMatcher(`${'*a'.repeat(5000)}*`)('a'.repeat(5000))).toBe(true);
  });
});
