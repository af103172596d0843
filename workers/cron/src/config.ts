/**
 * svc-cron's config (`{ adapter: { class, config } }`, SPEC.md "Cron module") and the adapter it names.
 */
import { CRON_ADAPTERS, type CronConfig } from '@svc/config';
import type { Logger } from 'pino';
import { KvCronAdapter } from './adapters/kv-lock.js';
import { KvserverCronAdapter } from './adapters/redis-lock.js';
import type { CronLockAdapter } from './adapters/types.js';

export { cronConfigSchema, type CronConfig } from '@svc/config';

export function createLockAdapter(config: CronConfig, logger: Logger): CronLockAdapter {
  const adapter = config.adapter;
  switch (adapter.class) {
    case CRON_ADAPTERS.kv:
      return new KvCronAdapter(adapter.config, logger);
    case CRON_ADAPTERS.kvserver:
      return new KvserverCronAdapter(adapter.config, logger);
  }
}

/** How long a tick's claim lives; a late tick may still run within half of it (see tick-planner.ts). */
export function lockTtlMs(config: CronConfig): number {
  return config.adapter.config.lock_ttl_ms;
}
