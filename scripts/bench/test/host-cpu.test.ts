import { describe, expect, it } from 'vitest';
import { cpuShares, describeShares, readCpuTimes } from '../lib/host-cpu.mjs';

/** The first lines of /proc/stat as a two-CPU guest writes them (user nice system idle iowait irq softirq steal …). */
const stat = (cpu: string) => `cpu  ${cpu} 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\nintr 12345 0 0\nctxt 999\n`;

describe("the bench's reading of the machine's CPU time", () => {
  it('reads the summed cpu line, not a per-CPU one', () => {
    expect(readCpuTimes(stat('68507 0 24276 88777 960 0 9322 9671'))).toEqual({
      user: 68507,
      nice: 0,
      system: 24276,
      idle: 88777,
      iowait: 960,
      irq: 0,
      softirq: 9322,
      steal: 9671,
    });
  });

  it('gives nothing for a text without a cpu line or with a damaged one', () => {
    expect(readCpuTimes('')).toBeUndefined();
    expect(readCpuTimes('cpu0 1 2 3 4 5 6 7 8\n')).toBeUndefined();
    expect(readCpuTimes('cpu  1 2 3\n')).toBeUndefined();
    expect(readCpuTimes('cpu  1 2 3 x 5 6 7 8 0 0\n')).toBeUndefined();
  });

  it('splits the time between two readings into busy, idle (with iowait) and stolen', () => {
    const before = readCpuTimes(stat('1000 0 500 2000 0 0 100 0'));
    // 100 CPU-seconds (50 s of a two-CPU guest at 100 ticks a second): 58 user + 11 system + 5 softirq busy, 20 idle + 2 iowait, 4 stolen
    const after = readCpuTimes(stat('6800 0 1600 4000 200 0 600 400'));
    const shares = cpuShares(before, after)!;
    expect(shares.busy).toBeCloseTo(0.74, 5);
    expect(shares.idle).toBeCloseTo(0.22, 5);
    expect(shares.steal).toBeCloseTo(0.04, 5);
    expect(describeShares(shares)).toBe('74% busy, 22% idle, 4% stolen by the host');
  });

  it('gives no shares without two readings or when no time passed', () => {
    const reading = readCpuTimes(stat('1 0 1 1 0 0 0 0'));
    expect(cpuShares(undefined, reading)).toBeUndefined();
    expect(cpuShares(reading, undefined)).toBeUndefined();
    expect(cpuShares(reading, reading)).toBeUndefined();
  });

  it('reads this machine’s /proc/stat when there is one', () => {
    const now = readCpuTimes();
    if (process.platform !== 'linux') {
      expect(now).toBeUndefined();
      return;
    }
    expect(now!.user + now!.system + now!.idle).toBeGreaterThan(0);
  });
});
