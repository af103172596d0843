// The CPU time one process has used so far, from /proc/<pid>/stat (Linux), read by the benchmarks around a measured
// window: per call or per delivered message, the CPU a path spends is steadier on a shared machine than its rate.
import { readFileSync } from 'node:fs';

/** CPU time (user + system) a process has used, µs, from /proc (Linux); undefined elsewhere. */
export function cpuMicros(pid) {
  return cpuTimes(pid)?.total;
}

/**
 * A process's CPU time so far in µs, user and system apart (`/proc/<pid>/stat`, in 10 ms ticks), with their sum;
 * undefined once the process is gone.
 */
export function cpuTimes(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the fields after the command name, which is in brackets and may itself hold ') '
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, in clock ticks (USER_HZ: 100 a second)
    const user = Number(fields[11]) * 10_000;
    const system = Number(fields[12]) * 10_000;
    return { user, system, total: user + system };
  } catch {
    return undefined;
  }
}
