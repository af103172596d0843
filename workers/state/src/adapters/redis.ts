/**
 * `KvserverAdapter`: state in Redis through ioredis (`kvserver_url`), shared by every svc-state process and engine
 * that uses the same Redis and `key_prefix`.
 *
 * Layout: one hash per scope (`<prefix>scope:<scope>`, field = key, value = JSON text), a set of scopes
 * (`<prefix>scopes`), and a change stream (`<prefix>changes`, capped at about `change_feed_max_len` entries).
 * `set` and `delete` are single Lua scripts; `update` is an optimistic read → mutate → compare-and-set loop. Each
 * of them appends its change to the stream inside the same script, so the stream order is the commit order.
 *
 * The change feed: every process tails the whole stream from the moment it started and hands each change to its
 * listener. A trigger binding lives in exactly one process (the engine gives each binding to one provider of the
 * `state` type), so each change fires each binding once, whichever process (or engine) committed it. A process
 * that lags by more than the stream cap loses the oldest changes; it logs that it did.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { CAS_SCRIPT, DELETE_SCRIPT, SET_SCRIPT } from './redis-scripts.js';
import { byKey, parseStored } from './feed.js';
import {
  closedError,
  StoreError,
  type ChangeListener,
  type JsonValue,
  type Mutation,
  type StateAdapter,
  type StateChange,
  type UpdateResult,
  type WriteResult,
} from './types.js';

export interface RedisAdapterOptions {
  url: string;
  keyPrefix: string;
  changeFeedMaxLen: number;
  logger?: Logger;
}

const MAX_CAS_ATTEMPTS = 100;
const FEED_BATCH = 256;
const FEED_BLOCK_MS = 1000;

type StreamReply = [string, [string, string[]][]][] | null;

export class RedisAdapter implements StateAdapter {
  private readonly redis: Redis;
  private readonly feedRedis: Redis;
  private listener: ChangeListener | undefined;
  private lastId = '0-0';
  private feedLoop: Promise<void> | undefined;
  private closing = false;
  private closed = false;

  constructor(private readonly options: RedisAdapterOptions) {
    this.redis = new Redis(options.url, { lazyConnect: true, maxRetriesPerRequest: 3, commandTimeout: 10_000 });
    this.feedRedis = new Redis(options.url, { lazyConnect: true, maxRetriesPerRequest: null });
    this.redis.on('error', (err: unknown) => options.logger?.warn({ err }, 'redis connection error'));
    this.feedRedis.on('error', (err: unknown) => options.logger?.warn({ err }, 'redis change feed connection error'));
  }

  async start(): Promise<void> {
    try {
      await Promise.all([this.redis.connect(), this.feedRedis.connect()]);
    } catch (err) {
      this.redis.disconnect();
      this.feedRedis.disconnect();
      throw new StoreError('store_open_failed', `cannot connect to ${redactUrl(this.options.url)}: ${String(err)}`, {
        cause: err,
      });
    }
    // Start after the newest existing change: a process fires for changes committed while it runs.
    const newest = (await this.redis.xrevrange(this.streamKey, '+', '-', 'COUNT', 1))[0];
    this.lastId = newest?.[0] ?? '0-0';
    this.feedLoop = this.runFeed();
  }

  async get(scope: string, key: string): Promise<JsonValue | undefined> {
    this.assertOpen();
    const text = await this.redis.hget(this.hashKey(scope), key);
    return text === null ? undefined : parseStored(text);
  }

  async set(scope: string, key: string, value: JsonValue): Promise<WriteResult> {
    this.assertOpen();
    const old = (await this.redis.eval(
      SET_SCRIPT,
      3,
      ...this.keys(scope),
      scope,
      key,
      JSON.stringify(value),
      this.maxLen(),
    )) as string | null;
    return { old_value: old === null ? undefined : parseStored(old), new_value: value };
  }

  async delete(scope: string, key: string): Promise<JsonValue | undefined> {
    this.assertOpen();
    const old = (await this.redis.eval(DELETE_SCRIPT, 3, ...this.keys(scope), scope, key, this.maxLen())) as
      string | null;
    return old === null ? undefined : parseStored(old);
  }

  async update(scope: string, key: string, mutate: Mutation): Promise<UpdateResult> {
    this.assertOpen();
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const raw = await this.redis.hget(this.hashKey(scope), key);
      const current = raw === null ? undefined : parseStored(raw);
      const next = mutate(current);
      if (next === undefined) return { old_value: current, new_value: current, written: false };
      const exists = raw === null ? '0' : '1';
      const args = [scope, key, exists, raw ?? '', JSON.stringify(next), this.maxLen()];
      const written = (await this.redis.eval(CAS_SCRIPT, 3, ...this.keys(scope), ...args)) as number;
      if (written === 1) return { old_value: current, new_value: next, written: true };
    }
    throw new StoreError(
      'update_conflict',
      `state::update of ${scope}/${key} lost the race ${MAX_CAS_ATTEMPTS} times in a row; retry later`,
    );
  }

  async list(scope: string): Promise<JsonValue[]> {
    this.assertOpen();
    const all = await this.redis.hgetall(this.hashKey(scope));
    return Object.entries(all)
      .map(([key, text]) => ({ key, text }))
      .sort(byKey)
      .map((entry) => parseStored(entry.text));
  }

  async listGroups(): Promise<string[]> {
    this.assertOpen();
    return (await this.redis.smembers(this.scopesKey)).sort();
  }

  onChange(listener: ChangeListener): void {
    this.listener = listener;
  }

  async close(): Promise<void> {
    if (this.closing) return this.feedLoop;
    this.closing = true;
    this.closed = true;
    this.listener = undefined;
    this.feedRedis.disconnect(); // interrupts the blocking read
    await this.feedLoop;
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private async runFeed(): Promise<void> {
    while (!this.closing) {
      let reply: StreamReply;
      try {
        reply = (await this.feedRedis.xread(
          'COUNT',
          FEED_BATCH,
          'BLOCK',
          FEED_BLOCK_MS,
          'STREAMS',
          this.streamKey,
          this.lastId,
        )) as StreamReply;
      } catch (err) {
        if (this.closing) return;
        this.options.logger?.warn({ err }, 'reading the state change stream failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, 250));
        continue;
      }
      for (const [, entries] of reply ?? []) {
        for (const [id, fields] of entries) {
          if (this.closing) return;
          this.lastId = id;
          await this.deliver(id, fields);
        }
      }
    }
  }

  private async deliver(id: string, fields: string[]): Promise<void> {
    const change = parseEntry(fields);
    if (change === undefined) {
      this.options.logger?.warn({ id }, 'skipping a malformed entry of the state change stream');
      return;
    }
    try {
      await this.listener?.(change);
    } catch (err) {
      this.options.logger?.error({ err }, 'state change listener failed');
    }
  }

  private keys(scope: string): [string, string, string] {
    return [this.hashKey(scope), this.scopesKey, this.streamKey];
  }

  private hashKey(scope: string): string {
    return `${this.options.keyPrefix}scope:${scope}`;
  }

  private get scopesKey(): string {
    return `${this.options.keyPrefix}scopes`;
  }

  private get streamKey(): string {
    return `${this.options.keyPrefix}changes`;
  }

  private maxLen(): string {
    return String(this.options.changeFeedMaxLen);
  }

  private assertOpen(): void {
    if (this.closed) throw closedError();
  }
}

function parseEntry(fields: string[]): StateChange | undefined {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i] as string, fields[i + 1] as string);
  const event_type = map.get('e');
  const scope = map.get('s');
  const key = map.get('k');
  if (scope === undefined || key === undefined) return undefined;
  if (event_type !== 'state:created' && event_type !== 'state:updated' && event_type !== 'state:deleted') {
    return undefined;
  }
  const old = map.get('o');
  const next = map.get('n');
  try {
    return {
      event_type,
      scope,
      key,
      old_value: old === undefined ? null : parseStored(old),
      new_value: next === undefined ? null : parseStored(next),
    };
  } catch {
    return undefined;
  }
}

/** The URL without its password, for error messages. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
