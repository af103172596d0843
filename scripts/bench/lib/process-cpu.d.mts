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

/** Read and write system calls a process has made so far, and their bytes (`/proc/<pid>/io`). */
export interface IoCalls {
  reads: number;
  writes: number;
  bytesRead: number;
  bytesWritten: number;
}

/** A process's read and write system calls so far; undefined once it is gone or where the file is unreadable. */
export function ioCalls(pid: number): IoCalls | undefined;

/** `pid` when that process on this machine runs the program `name` (`/proc/<pid>/comm`); undefined otherwise. */
export function localProcess(pid: number, name: string): number | undefined;
