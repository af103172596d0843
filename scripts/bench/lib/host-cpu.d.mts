/** The machine's CPU time so far, in clock ticks summed over all CPUs (the `cpu` line of /proc/stat). */
export interface CpuTimes {
  user: number;
  nice: number;
  system: number;
  idle: number;
  iowait: number;
  irq: number;
  softirq: number;
  steal: number;
}

/** Shares (0–1, summing to 1) of the time between two readings. */
export interface CpuShares {
  busy: number;
  idle: number;
  steal: number;
}

export const STEAL_WORTH_NAMING: number;

export function readCpuTimes(text?: string): CpuTimes | undefined;

export function cpuShares(before: CpuTimes | undefined, after: CpuTimes | undefined): CpuShares | undefined;

export function describeShares(shares: CpuShares): string;
