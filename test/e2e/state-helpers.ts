/** Shared by the svc-state end-to-end tests: start svc-state as a real process, connect clients, arm triggers. */
import pino from 'pino';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { vi } from 'vitest';
import { registerWorker, type SvcClient } from '@svc/sdk';
import { spawnWorker, waitFor, waitForFunction, type Child } from '../harness.js';

// These tests start engines and svc-state processes; on a loaded 2-core machine a start can take seconds. The limits
// are for hangs, never for speed (no assertion depends on them).
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

export const STATE_MAIN = 'workers/state/dist/main.js';
export const MEMORY_ADAPTER = { class: 'modules::state::adapters::KvStore', config: { store_method: 'in_memory' } };
export const REDIS_URL = process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function fileAdapter(filePath: string) {
  return { class: 'modules::state::adapters::KvStore', config: { store_method: 'file_based', file_path: filePath } };
}

export function redisAdapter(keyPrefix: string) {
  return {
    class: 'modules::state::adapters::KvserverAdapter',
    config: { kvserver_url: REDIS_URL, key_prefix: keyPrefix },
  };
}

/** Spawns svc-state against `engineUrl`, the way a person starts it by hand, and waits until it is registered. */
export async function startState(engineUrl: string, config: Record<string, unknown>): Promise<Child> {
  const child = spawnWorker(STATE_MAIN, {
    SVC_URL: engineUrl,
    SVC_MODULE_CONFIG: JSON.stringify(config),
    SVC_LOG_LEVEL: 'info',
  });
  await Promise.race([
    child.waitForOutput('"svc-state started"', 30_000),
    child.exit.then((code) => {
      throw new Error(`svc-state exited with ${code}:\n${child.logs()}`);
    }),
  ]);
  await waitForFunction(engineUrl, 'state::list_groups', 20_000);
  return child;
}

export async function sdkClient(engineUrl: string, name = 'state-e2e'): Promise<SvcClient> {
  const client = registerWorker(engineUrl, { workerName: name, logger: pino({ level: 'silent' }) });
  await client.ready();
  return client;
}

export interface StateEvent {
  type: string;
  event_type: string;
  scope: string;
  key: string;
  old_value: unknown;
  new_value: unknown;
}

/**
 * Registers a handler bound by a `state` trigger with `config`, and returns once the binding is live in every
 * svc-state replica (probe writes until `probes` of them in a row fired). The returned list then starts empty.
 */
export async function armTrigger(
  client: SvcClient,
  config: { scope: string; key?: string; condition_function_id?: string },
  handler: (event: StateEvent) => unknown = () => null,
  probes = 1,
): Promise<{ events: StateEvent[]; functionId: string; unregister(): void }> {
  const events: StateEvent[] = [];
  const functionId = `e2e::on-state-${randomUUID()}`;
  client.registerFunction(functionId, async (event: StateEvent) => {
    events.push(event);
    return handler(event);
  });
  const trigger = client.registerTrigger({ type: 'state', function_id: functionId, config });
  const key = config.key ?? '__probe';
  await waitFor(
    async () => {
      events.length = 0;
      for (let i = 0; i < probes; i++) {
        await client.trigger({ function_id: 'state::set', payload: { scope: config.scope, key, value: i } });
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      return events.length >= probes;
    },
    20_000,
    'state trigger to be live',
  );
  await client.trigger({ function_id: 'state::delete', payload: { scope: config.scope, key } });
  await waitFor(() => events.some((e) => e.event_type === 'state:deleted'), 5000, 'probe delete event');
  events.length = 0;
  return { events, functionId, unregister: () => trigger.unregister() };
}

/** The error a failed call rejected with. */
export async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (err) {
    return err as { code: string; message: string };
  }
  throw new Error('expected the call to fail');
}

/**
 * Asserts the error code a state function answered with. The code belongs in `error.code` on the wire; until the
 * SDK sends a thrown `InvocationError`'s own code (today every handler error goes out as `invocation_failed`),
 * the code is accepted at the head of the message, where `InvocationError` puts it.
 */
export function hasCode(err: { code: string; message: string }, code: string): boolean {
  return err.code === code || (err.code === 'invocation_failed' && err.message.includes(`${code}: `));
}

export interface E2eStore {
  name: string;
  /** The `adapter` entry of svc-state's config. */
  adapter: Record<string, unknown>;
  /** True when the store's service is not reachable (Redis not running): its suite is skipped. */
  skip: boolean;
  cleanup(): Promise<void>;
}

/** The stores the function and trigger suites run against: memory, a fresh file, and Redis under a fresh prefix. */
export async function e2eStores(): Promise<E2eStore[]> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-state-e2e-'));
  const prefix = `svc-e2e:${randomUUID()}:`;
  return [
    { name: 'memory', adapter: MEMORY_ADAPTER, skip: false, cleanup: async () => undefined },
    {
      name: 'file',
      adapter: fileAdapter(join(dir, 'state.db')),
      skip: false,
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    },
    {
      name: 'redis',
      adapter: redisAdapter(prefix),
      skip: !(await redisUp()),
      cleanup: () => deleteRedisPrefix(prefix),
    },
  ];
}

export async function redisUp(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  probe.on('error', () => undefined);
  const up = await probe.connect().then(
    () => true,
    () => false,
  );
  probe.disconnect();
  return up;
}

export async function deleteRedisPrefix(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  } catch {
    // Redis is gone: nothing to clean.
  } finally {
    redis.disconnect();
  }
}
