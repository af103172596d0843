/**
 * Helpers for the svc-cron end-to-end tests: a real engine, real svc-cron processes (started by hand with
 * SVC_URL and SVC_MODULE_CONFIG, exactly as docker compose or the engine's supervisor would), and a recording
 * worker (our SDK, in the test process) whose function counts every run it receives.
 */
import { Redis } from 'ioredis';
import pino from 'pino';
import { registerWorker, type SvcClient } from '@svc/sdk';
import { spawnWorker, type Child } from '../harness.js';

export const REDIS_URL = process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const CRON_MAIN = 'workers/cron/dist/main.js';

export interface CronRun {
  job_id: string;
  scheduled_time: string;
  actual_time: string;
  trigger: string;
  caller: string | undefined;
  receivedAt: number;
}

export function spawnCron(url: string, adapter: object, env: Record<string, string> = {}): Child {
  return spawnWorker(CRON_MAIN, {
    SVC_URL: url,
    SVC_MODULE_CONFIG: JSON.stringify({ adapter }),
    SVC_LOG_LEVEL: 'info',
    ...env,
  });
}

export const memoryAdapter = { class: 'modules::cron::KvCronAdapter', config: { store_method: 'in_memory' } };
export const redisAdapter = (url = REDIS_URL, lockIndex = `test-cron-${process.pid}-${Date.now()}`) => ({
  class: 'modules::cron::KvserverCronAdapter',
  config: { kvserver_url: url, lock_index: lockIndex },
});

/** The worker id a svc-cron child logged when it started (runCapabilityWorker logs it). */
export async function workerIdOf(child: Child): Promise<string> {
  await child.waitForOutput(/"worker_id":"[0-9a-f-]{36}"[^\n]*started/, 10000);
  const match = /"worker_id":"([0-9a-f-]{36})"[^\n]*started/.exec(child.logs());
  return match![1]!;
}

/** A worker that provides `functionId` and records each run. */
export async function recorder(url: string, functionId: string): Promise<{ client: SvcClient; runs: CronRun[] }> {
  const runs: CronRun[] = [];
  const client = registerWorker(url, { workerName: 'cron-e2e', logger: pino({ level: 'silent' }) });
  client.registerFunction(functionId, (payload: Record<string, unknown>) => {
    runs.push({
      job_id: String(payload.job_id),
      scheduled_time: String(payload.scheduled_time),
      actual_time: String(payload.actual_time),
      trigger: String(payload.trigger),
      caller: typeof payload._caller_worker_id === 'string' ? payload._caller_worker_id : undefined,
      receivedAt: Date.now(),
    });
    return null;
  });
  await client.ready();
  return { client, runs };
}

/** Runs grouped by scheduled tick. */
export function byTick(runs: CronRun[]): Map<string, CronRun[]> {
  const ticks = new Map<string, CronRun[]>();
  for (const run of runs) ticks.set(run.scheduled_time, [...(ticks.get(run.scheduled_time) ?? []), run]);
  return ticks;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function redisReachable(url = REDIS_URL): Promise<boolean> {
  const probe = new Redis(url, { lazyConnect: true, retryStrategy: () => null, connectTimeout: 1000 });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}
