import { describe, expect, it } from 'vitest';
import { WallClock } from '../src/modules/observability/wall-clock.js';

/** A host whose wall clock (`Date.now()`, whole ms) and monotonic clock the test moves by hand. */
function host(wallAtStart: number) {
  const state = { wall: wallAtStart, monotonic: 0, wallReads: 0 };
  const clock = new WallClock(
    1000,
    () => {
      state.wallReads++;
      return Math.floor(state.wall);
    },
    () => state.monotonic,
  );
  const advance = (ms: number) => {
    state.wall += ms;
    state.monotonic += ms;
  };
  return { state, clock, advance };
}

describe('the wall clock of span times', () => {
  it('keeps sub-millisecond steps between checks', () => {
    const { clock, advance } = host(1_700_000_000_000.25);
    const first = clock.now();
    advance(0.125);
    expect(clock.now() - first).toBeCloseTo(0.125, 6);
  });

  it('follows a host clock that was corrected while the engine ran', () => {
    const { state, clock, advance } = host(1_700_000_000_000);
    clock.now();
    advance(5_000);
    state.wall += 412; // the host's clock is stepped forward
    expect(clock.now()).toBeGreaterThanOrEqual(1_700_000_005_412);
    expect(clock.now()).toBeLessThan(1_700_000_005_413);
    advance(5_000);
    state.wall -= 300; // and back
    expect(Math.floor(clock.now())).toBe(1_700_000_010_112);
  });

  it('leaves an estimate that agrees with the whole-millisecond wall clock alone', () => {
    const { clock, advance } = host(1_700_000_000_000.9);
    const first = clock.now();
    advance(1_000);
    // Date.now() reads ...001; the estimate ...001.4-ish lies inside [001, 002): no correction, no jitter
    expect(clock.now() - first).toBeCloseTo(1_000, 6);
  });

  it('checks the wall clock at most once per interval', () => {
    const { state, clock, advance } = host(1_700_000_000_000);
    for (let i = 0; i < 500; i++) {
      clock.now();
      advance(3);
    }
    expect(state.wallReads).toBe(2); // at 0 ms and at 1,002 ms
  });

  it('reads the real clocks within a millisecond of Date.now()', () => {
    const clock = new WallClock();
    const before = Date.now();
    const now = clock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThan(Date.now() + 1);
  });
});
