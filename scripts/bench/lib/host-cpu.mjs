// How the machine's CPUs were spent while a bench area ran, from the `cpu` line of /proc/stat: busy, idle, and
// stolen (time the hypervisor gave this guest's virtual CPUs to other guests). On a shared host a minute with steal
// slows a path of several processes that wake each other more than a peer with fewer hops, so run.mjs prints the
// shares beside each area and beside each missed row: a reader can tell the host's noise from a regression.
import { readFileSync } from 'node:fs';

/** Columns of the `cpu` line, in the kernel's order (guest time is already counted in user). */
const COLUMNS = ['user', 'nice', 'system', 'idle', 'iowait', 'irq', 'softirq', 'steal'];

/** The share of steal at or above which the summary of missed rows names it. */
export const STEAL_WORTH_NAMING = 0.05;

/**
 * The machine's CPU time so far (clock ticks summed over all CPUs) from /proc/stat's text, or undefined where there
 * is no such file or line (not Linux).
 */
export function readCpuTimes(text = readProcStat()) {
  const line = text?.split('\n').find((l) => l.startsWith('cpu '));
  if (line === undefined) return undefined;
  const fields = line.trim().split(/\s+/).slice(1).map(Number);
  if (fields.length < COLUMNS.length || fields.some((n) => !Number.isFinite(n))) return undefined;
  return Object.fromEntries(COLUMNS.map((name, i) => [name, fields[i]]));
}

/** Busy, idle and stolen shares (0–1, summing to 1) of the time between two readings; undefined without both. */
export function cpuShares(before, after) {
  if (before === undefined || after === undefined) return undefined;
  const delta = Object.fromEntries(COLUMNS.map((name) => [name, after[name] - before[name]]));
  const total = COLUMNS.reduce((sum, name) => sum + delta[name], 0);
  if (!(total > 0)) return undefined;
  const idle = (delta.idle + delta.iowait) / total;
  const steal = delta.steal / total;
  return { busy: 1 - idle - steal, idle, steal };
}

/** `61% busy, 24% idle, 14% stolen by the host` (percentages rounded; 0% stolen is said too). */
export function describeShares(shares) {
  const pct = (share) => `${Math.round(share * 100)}%`;
  return `${pct(shares.busy)} busy, ${pct(shares.idle)} idle, ${pct(shares.steal)} stolen by the host`;
}

function readProcStat() {
  try {
    return readFileSync('/proc/stat', 'utf8');
  } catch {
    return undefined;
  }
}
