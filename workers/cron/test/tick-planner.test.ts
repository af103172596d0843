import { describe, expect, it } from 'vitest';
import { parseSchedule } from '../src/schedule.js';
import { planWake } from '../src/tick-planner.js';

const T0 = Date.parse('2026-11-21T19:00:00.000Z');
const everySecond = parseSchedule('* * * * * *', undefined, T0);
const everyMinute = parseSchedule('0 * * * * *', undefined, T0);
const WINDOW = 15_000;
const iso = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());

describe('misfire policy (planWake)', () => {
  it('runs the due tick when woken on time or a little late', () => {
    expect(planWake(everySecond, T0, T0 + 3, WINDOW)).toEqual({ run: T0, missed: null, nextDue: T0 + 1000 });
    expect(planWake(everySecond, T0, T0 + 900, WINDOW).run).toBe(T0);
  });

  it('does nothing before the due tick (backward clock jump: no tick runs twice)', () => {
    const plan = planWake(everySecond, T0, T0 - 3_600_000, WINDOW);
    expect(plan).toEqual({ run: null, missed: null, nextDue: T0 });
  });

  it('collapses a pause into ONE run of the most recent tick, never a burst', () => {
    const plan = planWake(everySecond, T0, T0 + 10_250, WINDOW);
    expect(iso(plan.run)).toBe(iso(T0 + 10_000));
    expect(plan.missed).toEqual({ from: T0, to: T0 + 9_000 });
    expect(plan.nextDue).toBe(T0 + 11_000);
  });

  it('a forward clock jump of an hour runs at most once and resumes the schedule', () => {
    const plan = planWake(everyMinute, T0, T0 + 3_600_000 + 20, WINDOW);
    expect(iso(plan.run)).toBe('2026-11-21T20:00:00.000Z');
    expect(iso(plan.nextDue)).toBe('2026-11-21T20:01:00.000Z');
  });

  it('skips a tick that is older than the misfire window', () => {
    const plan = planWake(everyMinute, T0, T0 + 30_000, WINDOW);
    expect(plan.run).toBeNull();
    expect(plan.missed).toEqual({ from: T0, to: T0 });
    expect(iso(plan.nextDue)).toBe('2026-11-21T19:01:00.000Z');
  });

  it('never schedules a run more than once over a simulated hour of random wake-ups (seeded)', () => {
    let seed = 20261121;
    const random = (): number => {
      seed = (seed * 1664525 + 1013904223) % 4294967296; // LCG: reproducible, no dependency
      return seed / 4294967296;
    };
    let nextDue: number | null = T0;
    let now = T0;
    const runs: number[] = [];
    while (nextDue !== null && now < T0 + 1_200_000) {
      now += Math.floor(random() * 2500); // wake-ups that are early, on time and late
      if (random() < 0.01) now -= 5000; // occasional backward clock jumps
      const plan = planWake(everySecond, nextDue, now, WINDOW);
      if (plan.run !== null) runs.push(plan.run);
      nextDue = plan.nextDue;
    }
    expect(new Set(runs).size).toBe(runs.length);
    expect([...runs].sort((a, b) => a - b)).toEqual(runs);
  });
});
