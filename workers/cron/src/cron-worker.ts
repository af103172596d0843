/**
 * svc-cron wired together on one SDK client: the lock adapter, the `cron` trigger type and the `cron::*`
 * functions. `close()` is idempotent: it stops every timer, then closes the lock adapter.
 */
import type { SvcClient } from '@svc/sdk';
import type { Logger } from 'pino';
import { createLockAdapter, lockTtlMs } from './adapters/index.js';
import type { CronConfig } from './config.js';
import { registerCronFunctions } from './functions.js';
import { LockHealth } from './lock-health.js';
import { TickRunner } from './tick-runner.js';
import { CRON_CONFIG_SCHEMA, CRON_PAYLOAD_SCHEMA, CRON_TRIGGER_TYPE, CronTriggers } from './triggers.js';

export interface CronWorker {
  triggers: CronTriggers;
  close(): Promise<void>;
}

export async function startCronWorker(client: SvcClient, logger: Logger, config: CronConfig): Promise<CronWorker> {
  const adapter = await createLockAdapter(config, logger);
  await adapter.start();
  const health = new LockHealth(adapter.name, logger);
  const runner = new TickRunner(client, adapter, health, logger);
  const triggers = new CronTriggers(runner, Math.floor(lockTtlMs(config) / 2), logger);
  client.registerTriggerType(
    {
      id: CRON_TRIGGER_TYPE,
      description: 'Runs a function on a schedule (6 or 7 fields, seconds first; UTC)',
      trigger_request_format: CRON_CONFIG_SCHEMA,
      call_request_format: CRON_PAYLOAD_SCHEMA,
    },
    triggers,
  );
  registerCronFunctions(client, { triggers, runner, health, adapter });
  await client.synced(); // registered at the engine before the line below says so
  logger.info({ adapter: adapter.name, distributed: adapter.distributed }, 'svc-cron ready');
  let closed = false;
  return {
    triggers,
    async close() {
      if (closed) return;
      closed = true;
      runner.closing = true;
      triggers.stopAll();
      await adapter.close();
    },
  };
}
