/**
 * What happens at a tick: claim it in the lock store, and only if this process got the claim, fire the bound
 * function through the SDK (`fireTrigger` applies `condition_function_id`). The function runs fire-and-forget
 * (`TriggerAction.Void`): a cron job may run longer than any invocation timeout, and svc-cron never waits for it.
 */
import { TriggerAction, type FireResult, type SvcClient } from '@svc/sdk';
import type { Logger } from 'pino';
import type { CronLockAdapter } from './adapters/types.js';
import type { CronJob } from './cron-job.js';
import type { LockHealth } from './lock-health.js';

export interface CronPayload {
  trigger: 'cron';
  job_id: string;
  scheduled_time: string;
  actual_time: string;
}

export interface CronStats {
  runs: number;
  claimed_elsewhere: number;
  skipped_by_condition: number;
  misfires: number;
  fire_errors: number;
}

export class TickRunner {
  readonly stats: CronStats = { runs: 0, claimed_elsewhere: 0, skipped_by_condition: 0, misfires: 0, fire_errors: 0 };
  closing = false;

  constructor(
    private readonly client: SvcClient,
    private readonly adapter: CronLockAdapter,
    private readonly health: LockHealth,
    private readonly logger: Logger,
  ) {}

  /** A scheduled tick: runs only with the claim. Never throws (it is called from a timer). */
  async runTick(job: CronJob, scheduledMs: number): Promise<void> {
    let lease;
    try {
      lease = await this.adapter.claim(job.id, scheduledMs);
      this.health.ok();
    } catch (err) {
      this.health.failed(err);
      return;
    }
    if (lease === null) {
      this.stats.claimed_elsewhere++;
      return;
    }
    try {
      await this.fire(job, scheduledMs);
    } catch (err) {
      this.stats.fire_errors++;
      this.logger.warn({ err, job_id: job.id, tick: scheduledMs }, 'cron job could not be fired');
      // Shutting down before the call went out: give the tick back so another process can still run it.
      if (this.closing) await this.adapter.release(lease).catch(() => false);
    }
  }

  /** Fires the job's function now for `scheduledMs` (also used by `cron::trigger`, which takes no claim). */
  async fire(job: CronJob, scheduledMs: number): Promise<FireResult<unknown> & { payload: CronPayload }> {
    const payload: CronPayload = {
      trigger: 'cron',
      job_id: job.id,
      scheduled_time: new Date(scheduledMs).toISOString(),
      actual_time: new Date().toISOString(),
    };
    const result = await this.client.fireTrigger(job.binding, payload, { action: TriggerAction.Void() });
    if (result.fired) {
      this.stats.runs++;
      job.lastRun = scheduledMs;
    } else this.stats.skipped_by_condition++;
    this.logger.debug({ job_id: job.id, tick: payload.scheduled_time, fired: result.fired }, 'cron tick');
    return { ...result, payload };
  }
}
