/**
 * The `cron` trigger type. The engine hands svc-cron every binding of the type (each svc-cron process gets all of
 * them; the lock store decides which process runs a tick). A binding with a bad config is refused by throwing, and
 * the SDK turns the message into the `triggerregistrationresult` error the registering worker sees.
 *
 * Binding config: `expression` (6 or 7 fields, seconds first), `timezone?` (IANA name, default UTC),
 * `condition_function_id?`. Unknown keys are ignored, as the original engine does.
 */
import type { TriggerBinding, TriggerTypeHandler } from '@svc/sdk';
import type { Logger } from 'pino';
import { CronJob, type CronTriggerConfig } from './cron-job.js';
import { CronExpressionError, parseSchedule } from './schedule.js';
import type { TickRunner } from './tick-runner.js';

export const CRON_TRIGGER_TYPE = 'cron';

/** JSON Schemas advertised with the trigger type (shown by `engine::triggers::info` and the console). */
export const CRON_CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    expression: { type: 'string', description: 'sec min hour day-of-month month day-of-week [year]' },
    timezone: { type: 'string', description: 'IANA time zone; default UTC' },
    condition_function_id: { type: 'string' },
  },
  required: ['expression'],
} as const;

export const CRON_PAYLOAD_SCHEMA = {
  type: 'object',
  properties: {
    trigger: { const: 'cron' },
    job_id: { type: 'string' },
    scheduled_time: { type: 'string', format: 'date-time' },
    actual_time: { type: 'string', format: 'date-time' },
  },
  required: ['trigger', 'job_id', 'scheduled_time', 'actual_time'],
} as const;

export class CronTriggers implements TriggerTypeHandler<unknown> {
  readonly jobs = new Map<string, CronJob>();

  constructor(
    private readonly runner: TickRunner,
    /** How late a missed tick may still run (misfire policy). */
    private readonly misfireWindowMs: number,
    private readonly logger: Logger,
  ) {}

  registerTrigger(binding: TriggerBinding<unknown>): void {
    const config = readConfig(binding.config);
    const schedule = parseSchedule(config.expression, config.timezone);
    this.jobs.get(binding.id)?.stop();
    const job = new CronJob({ ...binding, config }, schedule, this.misfireWindowMs, {
      onTick: (j, tick) => void this.runner.runTick(j, tick),
      onMissed: (j, missed) => {
        this.runner.stats.misfires++;
        this.logger.warn(
          { job_id: j.id, from: new Date(missed.from).toISOString(), to: new Date(missed.to).toISOString() },
          'cron ticks missed (process paused or clock jumped); at most one late run per job',
        );
      },
      now: Date.now,
    });
    this.jobs.set(binding.id, job);
    job.start();
    this.logger.info(
      { job_id: binding.id, function_id: binding.function_id, expression: schedule.expression },
      'cron job scheduled',
    );
  }

  unregisterTrigger(binding: TriggerBinding<unknown>): void {
    const job = this.jobs.get(binding.id);
    if (!job) return;
    job.stop();
    this.jobs.delete(binding.id);
    this.logger.info({ job_id: binding.id }, 'cron job removed');
  }

  stopAll(): void {
    for (const job of this.jobs.values()) job.stop();
    this.jobs.clear();
  }
}

function readConfig(config: unknown): CronTriggerConfig {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new CronExpressionError(`cron trigger config must be an object like { "expression": "*/5 * * * * *" }`);
  }
  const { expression, timezone, condition_function_id } = config as Record<string, unknown>;
  if (timezone !== undefined && timezone !== null && typeof timezone !== 'string') {
    throw new CronExpressionError(`invalid timezone: expected a string such as 'UTC' or 'Europe/Paris'`);
  }
  if (
    condition_function_id !== undefined &&
    condition_function_id !== null &&
    typeof condition_function_id !== 'string'
  ) {
    throw new CronExpressionError('condition_function_id must be a function id (string)');
  }
  const out: CronTriggerConfig = { expression: expression as string };
  if (typeof timezone === 'string' && timezone !== '') out.timezone = timezone;
  if (typeof condition_function_id === 'string' && condition_function_id !== '') {
    out.condition_function_id = condition_function_id;
  }
  return out;
}
