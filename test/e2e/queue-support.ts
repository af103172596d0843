/**
 * Helpers for the svc-queue end-to-end tests: a real engine, real svc-queue processes (started by hand with
 * SVC_URL and SVC_MODULE_CONFIG, as docker compose or the engine's supervisor would), and workers on our SDK.
 */
import pino from 'pino';
import { registerWorker, type SvcClient } from '@svc/sdk';
import { spawnWorker, type Child } from '../harness.js';

export const QUEUE_MAIN = 'workers/queue/dist/main.js';
export const REDIS_URL = process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function spawnQueue(url: string, config: object, env: Record<string, string> = {}): Child {
  return spawnWorker(QUEUE_MAIN, {
    SVC_URL: url,
    SVC_MODULE_CONFIG: JSON.stringify(config),
    SVC_LOG_LEVEL: 'info',
    ...env,
  });
}

export async function startedQueue(url: string, config: object): Promise<Child> {
  const child = spawnQueue(url, config);
  await child.waitForOutput('svc-queue ready', 15000);
  return child;
}

export function client(url: string, name: string): SvcClient {
  return registerWorker(url, { workerName: name, logger: pino({ level: 'silent' }) });
}

export const builtinMemory = (o: Record<string, unknown> = {}) => ({
  class: 'modules::queue::BuiltinQueueAdapter',
  config: { store_method: 'in_memory', backoff_ms: 100, ...o },
});

export const builtinFile = (dir: string, o: Record<string, unknown> = {}) => ({
  class: 'modules::queue::BuiltinQueueAdapter',
  config: { store_method: 'file_based', file_path: dir, backoff_ms: 100, ...o },
});

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
