/**
 * One scheduled binding: a timer that wakes at each tick of its schedule and hands the tick to `onTick`.
 *
 * Timers run on the monotonic clock while ticks are wall-clock times, so the job never sleeps longer than
 * `MAX_SLEEP_MS` at a time: a wall-clock jump is noticed within that bound and handled by the misfire policy
 * (tick-planner.ts). `onTick` is not awaited: a slow lock store or engine never delays the next tick's timer.
 *
 * Owns: its timer. `stop()` is idempotent.
 */
import type { TriggerBinding } from '@svc/sdk';
import type { Schedule } from './schedule.js';
import { planWake, type WakePlan } from './tick-planner.js';

const MAX_SLEEP_MS = 5000;

export interface CronTriggerConfig {
  expression: string;
  timezone?: string;
  condition_function_id?: string;
}

export interface CronJobHooks {
  onTick(job: CronJob, scheduledMs: number): void;
  onMissed(job: CronJob, missed: NonNullable<WakePlan['missed']>): void;
  now(): number;
}

export class CronJob {
  private timer: NodeJS.Timeout | undefined;
  private nextDue: number | null;
  private stopped = false;
  /** The scheduled time of the last run this process fired (set by the runner). */
  lastRun: number | undefined;

  constructor(
    readonly binding: TriggerBinding<CronTriggerConfig>,
    readonly schedule: Schedule,
    private readonly windowMs: number,
    private readonly hooks: CronJobHooks,
  ) {
    this.nextDue = schedule.nextAfter(hooks.now());
  }

  get id(): string {
    return this.binding.id;
  }

  get nextRun(): number | null {
    return this.nextDue;
  }

  start(): void {
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    if (this.stopped || this.nextDue === null) return;
    const delay = Math.min(Math.max(this.nextDue - this.hooks.now(), 0), MAX_SLEEP_MS);
    this.timer = setTimeout(() => this.wake(), delay);
  }

  private wake(): void {
    this.timer = undefined;
    if (this.stopped || this.nextDue === null) return;
    const plan = planWake(this.schedule, this.nextDue, this.hooks.now(), this.windowMs);
    this.nextDue = plan.nextDue;
    if (plan.missed) this.hooks.onMissed(this, plan.missed);
    if (plan.run !== null) this.hooks.onTick(this, plan.run);
    this.arm();
  }
}
