/**
 * The misfire policy, as a pure function of (schedule, next due tick, wall-clock now), so it can be tested
 * without timers.
 *
 * - On time: the wake-up finds exactly the due tick; it runs.
 * - Late (the process was paused, the event loop stalled, the wall clock jumped forward): every tick between the
 *   due one and now is collapsed into ONE run of the most recent of them, and only if that tick is no older than
 *   `windowMs`; older ones are skipped. So there is at most one late run, never a burst of catch-up runs.
 * - Early (the wall clock jumped backwards): nothing runs until the wall clock reaches the due tick again, so a
 *   tick that already ran is never run a second time.
 */
import type { Schedule } from './schedule.js';

export interface WakePlan {
  /** The scheduled time (ms) of the tick to run now, or null when nothing runs on this wake-up. */
  run: number | null;
  /** Due ticks that were dropped by the misfire policy (first and last), for the log. */
  missed: { from: number; to: number } | null;
  /** The next tick to wake up for, or null when the schedule never fires again. */
  nextDue: number | null;
}

export function planWake(schedule: Schedule, nextDue: number, now: number, windowMs: number): WakePlan {
  if (now < nextDue) return { run: null, missed: null, nextDue };
  const latest = schedule.latestAtOrBefore(now) ?? nextDue;
  const newest = Math.max(latest, nextDue);
  const following = schedule.nextAfter(newest);
  if (now - newest > windowMs) {
    return { run: null, missed: { from: nextDue, to: newest }, nextDue: following };
  }
  const missed = newest > nextDue ? { from: nextDue, to: schedule.latestAtOrBefore(newest - 1) ?? nextDue } : null;
  return { run: newest, missed, nextDue: following };
}
