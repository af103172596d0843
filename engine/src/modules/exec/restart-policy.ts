/**
 * When a supervised process that exited on its own is started again. Exponential backoff (100 ms, 200 ms, ... up
 * to 30 s) so a crash loop costs almost no CPU; the delay resets once the process has stayed up for a healthy
 * period; more than `maxRestarts` crashes within `windowMs` marks it failed (it is not restarted again).
 */
export interface RestartPolicy {
  initialDelayMs: number;
  maxDelayMs: number;
  factor: number;
  /** A run at least this long counts as healthy: the next crash starts again from `initialDelayMs`. */
  healthyAfterMs: number;
  maxRestarts: number;
  windowMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  initialDelayMs: 100,
  maxDelayMs: 30_000,
  factor: 2,
  healthyAfterMs: 10_000,
  maxRestarts: 10,
  windowMs: 120_000,
};

export type RestartDecision =
  { action: 'restart'; delayMs: number; attempt: number } | { action: 'fail'; crashes: number };

/** Keeps the crash history of one process and decides what to do after each crash. */
export class CrashTracker {
  private consecutive = 0;
  private readonly crashTimes: number[] = [];

  constructor(private readonly policy: RestartPolicy) {}

  /** Called when the process exited without being asked to; `ranForMs` is how long it was up. */
  onCrash(now: number, ranForMs: number): RestartDecision {
    if (ranForMs >= this.policy.healthyAfterMs) this.consecutive = 0;
    this.crashTimes.push(now);
    while (this.crashTimes.length > 0 && (this.crashTimes[0] ?? now) <= now - this.policy.windowMs)
      this.crashTimes.shift();
    if (this.crashTimes.length > this.policy.maxRestarts) return { action: 'fail', crashes: this.crashTimes.length };
    const delayMs = Math.min(
      this.policy.maxDelayMs,
      this.policy.initialDelayMs * this.policy.factor ** this.consecutive,
    );
    this.consecutive++;
    return { action: 'restart', delayMs, attempt: this.consecutive };
  }
}
