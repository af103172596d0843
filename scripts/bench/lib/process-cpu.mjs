// The CPU time one process has used so far, from /proc/<pid>/stat (Linux), how often its threads slept and how many
// read and write system calls it made, read by the benchmarks around a measured window: per call or per delivered
// message, the CPU a path spends is steadier on a shared machine than its rate.
import { readFileSync, readdirSync } from 'node:fs';

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

/**
 * How many times a process's threads have gone to sleep so far (voluntary context switches: each waits for a
 * wake-up) and been taken off a CPU still runnable (involuntary ones), summed over its threads from
 * `/proc/<pid>/task/<tid>/status`; undefined once the process is gone. A thread that ended meanwhile takes its
 * counts with it, so a window's difference is a floor.
 */
export function contextSwitches(pid) {
  let tids;
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  let voluntary = 0;
  let involuntary = 0;
  for (const tid of tids) {
    let status;
    try {
      status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
    } catch {
      continue; // the thread ended between the listing and the read
    }
    voluntary += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    involuntary += Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
  }
  return { voluntary, involuntary };
}

/**
 * How many read and write system calls a process has made so far, and the bytes they moved (`syscr`, `syscw`, `rchar`
 * and `wchar` in `/proc/<pid>/io`: read(), readv(), write(), writev() and their kin, on sockets and pipes as on files;
 * not epoll or recvmsg/sendmsg), over all its threads; undefined once the process is gone or where the file cannot be
 * read (another user's process).
 */
export function ioCalls(pid) {
  let io;
  try {
    io = readFileSync(`/proc/${pid}/io`, 'utf8');
  } catch {
    return undefined;
  }
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(io)?.[1] ?? NaN);
  const counts = {
    reads: field('syscr'),
    writes: field('syscw'),
    bytesRead: field('rchar'),
    bytesWritten: field('wchar'),
  };
  return Object.values(counts).some(Number.isNaN) ? undefined : counts;
}

/**
 * `pid` when the process with that number on this machine runs the program `name` (`/proc/<pid>/comm`), else
 * undefined. A server that reports its own pid (Redis's `INFO server`) may run on another host, where the same number
 * names some other process here or none.
 */
export function localProcess(pid, name) {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name ? pid : undefined;
  } catch {
    return undefined;
  }
}
