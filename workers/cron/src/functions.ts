/**
 * svc-cron's functions: `cron::list` (every binding this process schedules, with its next run, plus the lock
 * store's health and counters) and `cron::trigger {id}` (fire a binding now, the console's "Trigger Now"; it takes
 * no lock: it is an explicit request, served by whichever svc-cron replica the engine routes it to).
 */
import { ErrorCode, InvocationError, type SvcClient } from '@svc/sdk';
import type { CronLockAdapter } from './adapters/types.js';
import type { LockHealth } from './lock-health.js';
import type { TickRunner } from './tick-runner.js';
import type { CronTriggers } from './triggers.js';
import { CronErrorCode } from './error-codes.js';

const fail = (code: string, message: string): never => {
  throw new InvocationError({ code, message });
};

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

export function registerCronFunctions(
  client: SvcClient,
  deps: { triggers: CronTriggers; runner: TickRunner; health: LockHealth; adapter: CronLockAdapter },
): void {
  client.registerFunction(
    'cron::list',
    () => ({
      adapter: deps.adapter.name,
      lock: {
        distributed: deps.adapter.distributed,
        available: deps.health.available,
        outages: deps.health.outages,
        skipped_ticks: deps.health.skippedTicks,
        last_error: deps.health.lastError ?? null,
      },
      stats: { ...deps.runner.stats },
      jobs: [...deps.triggers.jobs.values()].map((job) => ({
        id: job.id,
        function_id: job.binding.function_id,
        expression: job.schedule.expression,
        timezone: job.schedule.timezone,
        condition_function_id: job.binding.config.condition_function_id ?? null,
        next_run: iso(job.nextRun),
        last_run: iso(job.lastRun),
      })),
    }),
    { description: 'Lists the cron bindings this svc-cron process schedules, with their next run' },
  );

  client.registerFunction(
    'cron::trigger',
    async (input: unknown) => {
      const id = typeof input === 'object' && input !== null ? (input as { id?: unknown }).id : undefined;
      if (typeof id !== 'string' || id === '') {
        return fail(ErrorCode.InvalidArguments, 'cron::trigger needs { id: <cron trigger id> } (see cron::list)');
      }
      const job = deps.triggers.jobs.get(id);
      if (!job) return fail(CronErrorCode.CronJobNotFound, `no cron trigger with id '${id}' (see cron::list)`);
      const now = Date.now();
      const result = await deps.runner.fire(job, now);
      return { ...result.payload, function_id: job.binding.function_id, fired: result.fired };
    },
    { description: 'Fires a cron binding now ("Trigger Now"): { id }' },
  );
}
