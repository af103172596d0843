/** A process's CPU time so far, µs: user and system apart, and their sum. */
export interface CpuTimes {
  user: number;
  system: number;
  total: number;
}

/** CPU time (user + system) a process has used, µs; undefined once it is gone or where /proc is absent. */
export function cpuMicros(pid: number): number | undefined;

/** A process's CPU time so far, user and system apart (10 ms ticks); undefined once it is gone. */
export function cpuTimes(pid: number): CpuTimes | undefined;

/** Context switches of a process's threads so far: voluntary (each a sleep and a wake-up) and involuntary. */
export interface ContextSwitches {
  voluntary: number;
  involuntary: number;
}

/** A process's context switches summed over its threads (`/proc/<pid>/task`); undefined once it is gone. */
export function contextSwitches(pid: number): ContextSwitches | undefined;
