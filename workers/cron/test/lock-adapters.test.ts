/**
 * One conformance suite for every cron lock adapter: in-memory, file and Redis. The Redis run needs a server on
 * 127.0.0.1:6379 (scripts/services.sh starts one); each run uses its own key prefix.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { KvCronAdapter } from '../src/adapters/kv-lock.js';
import { KvserverCronAdapter } from '../src/adapters/redis-lock.js';
import { LockStoreUnavailableError, type CronLockAdapter } from '../src/adapters/types.js';
import { freePort } from '../../../test/harness.js';

const logger = pino({ level: 'silent' });
const REDIS_URL = process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const TTL = 300;

type Factory = () => CronLockAdapter;
const open: CronLockAdapter[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((a) => a.close()));
});

async function started(factory: Factory): Promise<CronLockAdapter> {
  const adapter = factory();
  open.push(adapter);
  await adapter.start();
  return adapter;
}

const kv =
  (store: 'in_memory' | 'file_based', file?: string): Factory =>
  () =>
    new KvCronAdapter(
      { lock_ttl_ms: TTL, lock_index: 'cron_locks', store_method: store, file_path: file, save_interval_ms: 50 },
      logger,
    );
const redis = (): Factory => {
  const index = `test-cron-${randomUUID()}`;
  return () => new KvserverCronAdapter({ kvserver_url: REDIS_URL, lock_ttl_ms: TTL, lock_index: index }, logger);
};

const adapters: Array<[string, () => Factory]> = [
  ['KvCronAdapter in_memory', () => kv('in_memory')],
  ['KvCronAdapter file_based', () => kv('file_based', join(mkdtempSync(join(tmpdir(), 'svc-cron-')), 'locks.json'))],
  ['KvserverCronAdapter', redis],
];

describe.each(adapters)('%s', (_name, makeFactory) => {
  it('gives a tick to exactly one of many concurrent claimers', async () => {
    const factory = makeFactory();
    const a = await started(factory);
    const b = a.distributed ? await started(factory) : a;
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).claim('job-1', 1000)));
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    expect(await a.claim('job-1', 2000)).not.toBeNull(); // another tick is a different claim
    expect(await a.claim('job-2', 1000)).not.toBeNull(); // and so is another job
  });

  it('releases only with the holder token (compare-and-delete)', async () => {
    const a = await started(makeFactory());
    const lease = (await a.claim('job', 1))!;
    expect(await a.release({ key: lease.key, token: 'not-the-token' })).toBe(false);
    expect(await a.claim('job', 1)).toBeNull();
    expect(await a.release(lease)).toBe(true);
    expect(await a.release(lease)).toBe(false);
    expect(await a.claim('job', 1)).not.toBeNull();
  });

  it('a stale holder cannot delete the claim of the holder after it (paused-process model)', async () => {
    const a = await started(makeFactory());
    const stale = (await a.claim('job', 1))!;
    await new Promise((r) => setTimeout(r, TTL + 100));
    const fresh = (await a.claim('job', 1))!;
    expect(fresh).not.toBeNull();
    expect(await a.release(stale)).toBe(false);
    expect(await a.claim('job', 1)).toBeNull(); // the fresh claim still stands
    expect(await a.release(fresh)).toBe(true);
  });

  it('close() is idempotent', async () => {
    const a = await started(makeFactory());
    await a.close();
    await a.close();
  });
});

describe('KvCronAdapter file_based', () => {
  it('keeps claims across a restart, so a restarted process does not rerun a tick', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-cron-')), 'sub', 'locks.json');
    const first = new KvCronAdapter(
      {
        lock_ttl_ms: 60_000,
        lock_index: 'cron_locks',
        store_method: 'file_based',
        file_path: file,
        save_interval_ms: 5000,
      },
      logger,
    );
    await first.start();
    expect(await first.claim('job', 42)).not.toBeNull();
    await first.close(); // writes the file
    const second = new KvCronAdapter(
      {
        lock_ttl_ms: 60_000,
        lock_index: 'cron_locks',
        store_method: 'file_based',
        file_path: file,
        save_interval_ms: 5000,
      },
      logger,
    );
    open.push(second);
    await second.start();
    expect(await second.claim('job', 42)).toBeNull();
    // The claim file is a SQLite database (better-sqlite3), as svc-state's and svc-stream's file stores are.
    expect(readFileSync(file).subarray(0, 15).toString()).toBe('SQLite format 3');
  });

  it('sets a corrupt file aside instead of trusting it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-cron-'));
    const file = join(dir, 'locks.json');
    writeFileSync(file, '{"claims": {"k": {"token": 5}}');
    const adapter = new KvCronAdapter(
      {
        lock_ttl_ms: 1000,
        lock_index: 'cron_locks',
        store_method: 'file_based',
        file_path: file,
        save_interval_ms: 5000,
      },
      logger,
    );
    open.push(adapter);
    await adapter.start();
    // The old content is kept aside; the file itself is a fresh lock database.
    expect(readdirSync(dir).some((f) => f.startsWith('locks.json.corrupt-'))).toBe(true);
    expect(existsSync(file)).toBe(true);
    expect(await adapter.claim('k', 1)).not.toBeNull();
  });
});

describe('KvserverCronAdapter when Redis is down', () => {
  it('fails closed at once with lock_store_unavailable', async () => {
    const adapter = await started(
      () => new KvserverCronAdapter({ kvserver_url: 'redis://127.0.0.1:1', lock_ttl_ms: TTL, lock_index: 'x' }, logger),
    );
    const started_at = Date.now();
    const error = await adapter.claim('job', 1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockStoreUnavailableError);
    expect((error as LockStoreUnavailableError).code).toBe('lock_store_unavailable');
    expect(Date.now() - started_at).toBeLessThan(1500);
  });

  it('leaves the claim key in Redis with the TTL after a run (no release on completion)', async () => {
    const index = `test-cron-${randomUUID()}`;
    const adapter = await started(
      () => new KvserverCronAdapter({ kvserver_url: REDIS_URL, lock_ttl_ms: 5000, lock_index: index }, logger),
    );
    const lease = (await adapter.claim('job', 7))!;
    const probe = new Redis(REDIS_URL);
    try {
      expect(await probe.get(`${index}:job:7`)).toBe(lease.token);
      const ttl = await probe.pttl(`${index}:job:7`);
      expect(ttl).toBeGreaterThan(4000);
      expect(ttl).toBeLessThanOrEqual(5000);
    } finally {
      probe.disconnect();
    }
  });
});

describe('KvserverCronAdapter when Redis hangs (DEBUG SLEEP)', () => {
  it('a claim gives up after the command timeout and fails closed; claims work again afterwards', async () => {
    const port = await freePort();
    const server = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--enable-debug-command',
        'local',
      ],
      { stdio: 'ignore' },
    );
    try {
      const url = `redis://127.0.0.1:${port}`;
      await new Promise((r) => setTimeout(r, 300));
      const adapter = await started(
        () => new KvserverCronAdapter({ kvserver_url: url, lock_ttl_ms: 5000, lock_index: 'hang' }, logger),
      );
      expect(await adapter.claim('job', 1)).not.toBeNull();
      const admin = new Redis(url);
      void admin.call('DEBUG', 'SLEEP', '2').catch(() => undefined);
      await new Promise((r) => setTimeout(r, 100));
      const t0 = Date.now();
      const error = await adapter.claim('job', 2).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LockStoreUnavailableError);
      expect(Date.now() - t0).toBeLessThan(1800); // the command timeout (1 s), not the whole hang
      await new Promise((r) => setTimeout(r, 2200));
      expect(await adapter.claim('job', 3)).not.toBeNull();
      admin.disconnect();
    } finally {
      server.kill('SIGKILL');
    }
  });
});
