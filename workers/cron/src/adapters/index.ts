/**
 * Picks the lock store named by `adapter.class` in svc-cron's config. Each store's module (and its client: SQLite
 * or Redis) is imported only when the config names it.
 */
import type { Logger } from 'pino';
import { CRON_ADAPTERS, type CronConfig } from '../config.js';
import type { CronLockAdapter } from './types.js';

export async function createLockAdapter(config: CronConfig, logger: Logger): Promise<CronLockAdapter> {
  const adapter = config.adapter;
  switch (adapter.class) {
    case CRON_ADAPTERS.kv: {
      const { KvCronAdapter } = await import('./kv-lock.js');
      return new KvCronAdapter(adapter.config, logger);
    }
    case CRON_ADAPTERS.kvserver: {
      const { KvserverCronAdapter } = await import('./redis-lock.js');
      return new KvserverCronAdapter(adapter.config, logger);
    }
  }
}

/** How long a tick's claim lives; a late tick may still run within half of it (see tick-planner.ts). */
export function lockTtlMs(config: CronConfig): number {
  return config.adapter.config.lock_ttl_ms;
}
