export { parseSchedule, CronExpressionError, type Schedule } from './schedule.js';
export { planWake, type WakePlan } from './tick-planner.js';
export type { CronLockAdapter, CronLease } from './adapters/types.js';
export { LockStoreUnavailableError } from './adapters/types.js';
export { KvCronAdapter } from './adapters/kv-lock.js';
export { KvserverCronAdapter } from './adapters/redis-lock.js';
export { startCronWorker, type CronWorker } from './cron-worker.js';
