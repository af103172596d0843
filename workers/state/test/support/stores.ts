/** The stores every conformance case runs against. Redis is skipped (with the reason) when it does not answer. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { FileAdapter } from '../../src/adapters/file.js';
import { MemoryAdapter } from '../../src/adapters/memory.js';
import { RedisAdapter } from '../../src/adapters/redis.js';
import type { StateAdapter } from '../../src/adapters/types.js';

export const REDIS_URL = process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface StoreKind {
  name: string;
  /** A new, empty store (a fresh file or a fresh key prefix). `reopen` opens the same data again. */
  make(): { adapter: StateAdapter; reopen(): StateAdapter; cleanup(): Promise<void> };
}

export async function redisAnswers(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
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

export const memoryStore: StoreKind = {
  name: 'memory',
  make() {
    const adapter = new MemoryAdapter();
    return { adapter, reopen: () => adapter, cleanup: async () => undefined };
  },
};

export const fileStore: StoreKind = {
  name: 'file',
  make() {
    const dir = mkdtempSync(join(tmpdir(), 'svc-state-'));
    const open = () => new FileAdapter({ filePath: join(dir, 'state.db'), saveIntervalMs: 200 });
    return { adapter: open(), reopen: open, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  },
};

export const redisStore: StoreKind = {
  name: 'redis',
  make() {
    const keyPrefix = `svc-test:${randomUUID()}:`;
    const open = () => new RedisAdapter({ url: REDIS_URL, keyPrefix });
    return { adapter: open(), reopen: open, cleanup: () => deletePrefix(keyPrefix) };
  },
};

/** Deletes every Redis key under `prefix` (a test's own). */
export async function deletePrefix(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

export async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
