/**
 * Wall-clock milliseconds with sub-millisecond resolution, for span times. `performance.timeOrigin +
 * performance.now()` alone is the wall clock read once at start-up plus the monotonic time since: when the host's
 * clock is corrected later (NTP, a hypervisor resyncing its guest), a long-running engine keeps the old reading and
 * its spans drift away from those of the processes it calls (seen on one host: 412 ms apart after 7 minutes).
 *
 * This clock keeps the monotonic clock's resolution and checks itself against `Date.now()` at most once per
 * `checkEveryMs`. `Date.now()` truncates to the millisecond, so the true time lies in `[Date.now(), Date.now() + 1)`:
 * an estimate inside that window is left alone (no jitter from the check itself); one outside it is moved to the
 * middle of the window, so a corrected host clock shows in the next spans.
 */
export class WallClock {
  private base = performance.timeOrigin;
  private checkedAt = -Infinity;

  constructor(
    private readonly checkEveryMs = 1000,
    private readonly wallNow: () => number = Date.now,
    private readonly monotonicNow: () => number = () => performance.now(),
  ) {}

  /** The wall clock's time now, in milliseconds since the epoch. */
  now(): number {
    const monotonic = this.monotonicNow();
    if (monotonic - this.checkedAt >= this.checkEveryMs) {
      this.checkedAt = monotonic;
      const wall = this.wallNow();
      const estimate = this.base + monotonic;
      if (estimate < wall || estimate >= wall + 1) this.base += wall + 0.5 - estimate;
    }
    return this.base + monotonic;
  }
}
