/**
 * Nanoseconds per system call made from Node.js: the best of `rounds` rounds of `reads` reads each. `time(read,
 * reads)` gives the ns per call of `read` (a test passes its own).
 */
export function systemCallNs(options?: {
  reads?: number;
  rounds?: number;
  time?: (read: () => number, reads: number) => number;
}): number;

/** `a system call from Node.js costs 612 ns (process.ppid against process.pid)` */
export function describeSystemCall(ns: number): string;
