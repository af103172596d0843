/**
 * `modules::cron::KvserverCronAdapter`: tick claims in Redis, shared by every svc-cron process (and every engine)
 * pointing at the same server, so each tick runs exactly once among them.
 *
 * Claim: `SET <index>:<job>:<tick> <token> NX PX <ttl>`. Release: a Lua compare-and-delete on the token, so only the
 * holder can delete its claim (a paused process whose claim expired cannot delete a newer holder's; README.md, "Locks:
 * exactly one run per tick"). Fail closed: while Redis cannot be reached, `claim` rejects at once with
 * `LockStoreUnavailableError` (no offline queue, no retry of a command) and nothing runs. The client reconnects every
 * `RECONNECT_MS`, so runs resume within one tick of Redis coming back.
 *
 * Owns: one ioredis connection. `close()` is idempotent and quits it; claims in Redis expire on their own.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { LockStoreUnavailableError, tickKey, type CronLease, type CronLockAdapter } from './types.js';

export interface KvserverCronOptions {
  kvserver_url: string;
  lock_ttl_ms: number;
  lock_index: string;
}

const RECONNECT_MS = 250;
const COMMAND_TIMEOUT_MS = 1000;

const RELEASE_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

export class KvserverCronAdapter implements CronLockAdapter {
  readonly name = 'modules::cron::KvserverCronAdapter';
  readonly distributed = true;
  private redis: Redis | undefined;
  private closed = false;

  constructor(
    private readonly options: KvserverCronOptions,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.redis = new Redis(this.options.kvserver_url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: 2000,
      retryStrategy: () => RECONNECT_MS,
      lazyConnect: false,
    });
    // Without a listener ioredis prints every failed reconnect; the runner reports outages once instead.
    this.redis.on('error', (err: Error) => this.logger.debug({ err: err.message }, 'cron lock store connection error'));
    await firstConnection(this.redis);
  }

  async claim(jobId: string, tickMs: number): Promise<CronLease | null> {
    const key = tickKey(this.options.lock_index, jobId, tickMs);
    const token = randomUUID();
    const reply = await this.command(() => this.client.set(key, token, 'PX', this.options.lock_ttl_ms, 'NX'));
    return reply === 'OK' ? { key, token } : null;
  }

  async release(lease: CronLease): Promise<boolean> {
    const deleted = await this.command(() => this.client.eval(RELEASE_SCRIPT, 1, lease.key, lease.token));
    return deleted === 1;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const redis = this.redis;
    this.redis = undefined;
    if (!redis) return;
    try {
      await redis.quit();
    } catch {
      redis.disconnect();
    }
  }

  private get client(): Redis {
    if (!this.redis) throw new LockStoreUnavailableError('cron lock store is not started or already closed');
    return this.redis;
  }

  private async command<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new LockStoreUnavailableError(`cron lock store (Redis) unavailable: ${why}`, { cause: err });
    }
  }
}

/**
 * Waits for the first connection attempt to end either way (bounded), so the first ticks find a ready client.
 * A server that is down does not stop svc-cron from starting: it runs fail-closed until Redis answers.
 */
function firstConnection(redis: Redis): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      redis.off('ready', done);
      redis.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, 2000);
    redis.once('ready', done);
    redis.once('error', done);
  });
}
