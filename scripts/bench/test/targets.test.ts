import { describe, expect, it } from 'vitest';
import { describeMiss, judgedFigure, meetsTarget, shownRatio } from '../lib/targets.mjs';

describe("the bench's target check", () => {
  it('judges a ratio unrounded: 0.696, which the row rounds to 0.7, misses ≥ 0.7', () => {
    expect(meetsTarget({ value: 27848, floor: 40009, ratio: 0.7, unit: 'calls/s', target: '≥ 0.7' })).toBe(false);
    expect(meetsTarget({ value: 28062, floor: 40000, ratio: 0.7, unit: 'calls/s', target: '≥ 0.7' })).toBe(true);
    expect(meetsTarget({ value: 99.3, floor: 94, ratio: 1.06, unit: 'µs', target: '≤ 1.0' })).toBe(false);
    expect(meetsTarget({ value: 16, floor: 6.5, ratio: 2.46, unit: 'ms', target: '≤ 3' })).toBe(true);
  });

  it('judges a target with a unit on the value, converting seconds for a row in ms', () => {
    expect(meetsTarget({ value: 232, floor: 88, ratio: 2.63, unit: 'ms', target: '< 300 ms' })).toBe(true);
    expect(meetsTarget({ value: 1083, floor: 88, ratio: 12.28, unit: 'ms', target: '< 1.5 s' })).toBe(true);
    expect(meetsTarget({ value: 1600, floor: 88, ratio: 18.2, unit: 'ms', target: '< 1.5 s' })).toBe(false);
    expect(meetsTarget({ value: 90.94, floor: 3260, ratio: 0.03, unit: 'ms', target: '< 50 ms' })).toBe(false);
  });

  it('judges a row without a ratio on its value, equality included, and leaves rows without a target alone', () => {
    expect(meetsTarget({ value: 10.27, unit: 'KiB', target: '≤ 16' })).toBe(true);
    expect(meetsTarget({ value: 0.55, unit: 'KiB', target: '≤ 0.5' })).toBe(false);
    expect(meetsTarget({ value: 0, floor: 0, unit: 'updates', target: '0' })).toBe(true);
    expect(meetsTarget({ value: 3, floor: 0, unit: 'updates', target: '0' })).toBe(false);
    expect(meetsTarget({ value: 1, unit: 'ms' })).toBeUndefined();
  });

  it('names the figure a missed row was judged on: the ratio, or the value with its unit', () => {
    expect(judgedFigure({ value: 64.87, floor: 19892.28, ratio: 0, unit: 'ms', target: '< 50 ms' })).toBe('64.87 ms');
    expect(judgedFigure({ value: 0.55, unit: 'KiB', target: '≤ 0.5' })).toBe('0.55 KiB');
    expect(judgedFigure({ value: 28601, floor: 47455, ratio: 0.6, unit: 'calls/s', target: '≥ 0.7' })).toBe('0.6');
  });

  it('prints a ratio whose rounding reads the other way than its verdict with the digits that decide it', () => {
    const http = { value: 16723, floor: 33483, ratio: 0.5, unit: 'req/s', target: '≥ 0.5' };
    expect(meetsTarget(http)).toBe(false);
    expect(shownRatio(http)).toBe('0.499');
    expect(judgedFigure(http)).toBe('0.499');
    // three decimals would still read 0.700 against ≥ 0.7: one more
    expect(shownRatio({ value: 60234, floor: 86097, ratio: 0.7, unit: 'calls/s', target: '≥ 0.7' })).toBe('0.6996');
    // a ratio whose rounding reads as its verdict does stays as the row gives it
    expect(shownRatio({ value: 28062, floor: 40000, ratio: 0.7, unit: 'calls/s', target: '≥ 0.7' })).toBe('0.7');
    expect(shownRatio({ value: 28601, floor: 47455, ratio: 0.6, unit: 'calls/s', target: '≥ 0.7' })).toBe('0.6');
    expect(shownRatio({ value: 99.3, floor: 94, ratio: 1.06, unit: 'µs', target: '≤ 1.0' })).toBe('1.06');
    // rows without a target, or judged on their value, print the ratio they carry
    expect(shownRatio({ value: 3, floor: 2, ratio: 1.5, unit: 'ms' })).toBe('1.5');
    expect(shownRatio({ value: 64.87, floor: 19892.28, ratio: 0, unit: 'ms', target: '< 50 ms' })).toBe('0');
    expect(shownRatio({ value: 1, unit: 'ms' })).toBe('');
  });

  it("names the host's steal beside a missed row only from the share worth naming", () => {
    const row = {
      area: 'queue',
      name: 'queue: end to end (builtin in_memory)',
      value: 6543,
      floor: 6270,
      ratio: 1.04,
      unit: 'jobs/s',
      target: '≥ 1.5',
    };
    expect(describeMiss(row, 0.14)).toBe(
      'queue: queue: end to end (builtin in_memory) (1.04, target ≥ 1.5; 14% of the CPU stolen by the host meanwhile)',
    );
    expect(describeMiss(row, 0.05)).toContain('target ≥ 1.5; 5% of the CPU stolen by the host meanwhile)');
    expect(describeMiss(row, 0.049)).toBe('queue: queue: end to end (builtin in_memory) (1.04, target ≥ 1.5)');
    expect(describeMiss(row)).toBe('queue: queue: end to end (builtin in_memory) (1.04, target ≥ 1.5)');
  });
});
