import { describe, expect, it } from 'vitest';
import { describeSystemCall, systemCallNs } from '../lib/host-syscall.mjs';

describe("the bench's price of a system call", () => {
  it('keeps the best round of reads with a system call less reads without one', () => {
    // ns per read, in the order the probe times them: with the call (process.ppid), then without (process.pid)
    const timings = [600, 20, 550, 25, 700, 20];
    const reads: string[] = [];
    const ns = systemCallNs({
      rounds: 3,
      time: (read) => {
        reads.push(read() === process.ppid ? 'ppid' : 'pid');
        return timings.shift()!;
      },
    });
    expect(ns).toBe(525);
    expect(reads).toEqual(['ppid', 'pid', 'ppid', 'pid', 'ppid', 'pid']);
  });

  it('never gives a negative price, whatever the noise', () => {
    const timings = [30, 40];
    expect(systemCallNs({ rounds: 1, time: () => timings.shift()! })).toBe(0);
  });

  it('measures this host with the real clock', () => {
    const ns = systemCallNs({ reads: 2_000, rounds: 2 });
    expect(Number.isFinite(ns)).toBe(true);
    expect(ns).toBeGreaterThanOrEqual(0);
  });

  it('says what it measured', () => {
    expect(describeSystemCall(612.4)).toBe(
      'a system call from Node.js costs 612 ns (process.ppid against process.pid)',
    );
  });
});
