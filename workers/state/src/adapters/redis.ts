/**
 * `KvserverAdapter`: state in Redis through ioredis (`kvserver_url`), shared by every svc-state process and engine
 * that uses the same Redis and `key_prefix`.
 *
 * Layout: one hash per scope (`<prefix>scope:<scope>`, field = key, value = JSON text) and a set of scopes
 * (`<prefix>scopes`). `set` and `delete` are single Lua scripts; `update` is an optimistic read → mutate →
 * compare-and-set loop. So `old_value` is always exactly the value the write replaced.
 *
 * Commands issued in the same turn of the event loop go out pipelined (ioredis `enableAutoPipelining`): a burst
 * of calls costs one socket write, not one per command.
 *
 * The change feed carries the changes this process committed, in the order Redis applied them (one connection,
 * pipelined or not: replies come back in commit order). Triggers therefore fire in the process that committed the
 * write, once; the other replicas, which hold the same bindings, do not see it. See the README ("Triggers with
 * several replicas").
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { CAS_SCRIPT, DELETE_SCRIPT, SET_SCRIPT } from './redis-scripts.js';
import { byKey, changeOf, LocalFeed, parseStored } from './feed.js';
import {
  closedError,
  StoreError,
  type ChangeListener,
  type JsonValue,
  type Mutation,
  type StateAdapter,
  type StateEntry,
  type UpdateResult,
  type WriteResult,
} from './types.js';
import { StateErrorCode } from '../error-codes.js';

export interface RedisAdapterOptions {
  url: string;
  keyPrefix: string;
  logger?: Logger;
}

const MAX_CAS_ATTEMPTS = 100;

interface ScriptedRedis extends Redis {
  stateSet(hash: string, scopes: string, scope: string, key: string, json: string): Promise<string | null>;
  stateDelete(hash: string, scopes: string, scope: string, key: string): Promise<string | null>;
  stateCas(hash: string, scopes: string, ...args: string[]): Promise<number>;
}

export class RedisAdapter implements StateAdapter {
  private readonly redis: ScriptedRedis;
  private readonly feed: LocalFeed;
  private closed = false;

  constructor(private readonly options: RedisAdapterOptions) {
    const redis = new Redis(options.url, {
      lazyConnect: true,
      maxRetriesPerRequest: 3,
      commandTimeout: 10_000,
      enableAutoPipelining: true,
    });
    redis.defineCommand('stateSet', { numberOfKeys: 2, lua: SET_SCRIPT });
    redis.defineCommand('stateDelete', { numberOfKeys: 2, lua: DELETE_SCRIPT });
    redis.defineCommand('stateCas', { numberOfKeys: 2, lua: CAS_SCRIPT });
    redis.on('error', (err: unknown) => options.logger?.warn({ err }, 'redis connection error'));
    this.redis = redis as ScriptedRedis;
    this.feed = new LocalFeed(options.logger);
  }

  async start(): Promise<void> {
    try {
      await this.redis.connect();
    } catch (err) {
      this.redis.disconnect();
      throw new StoreError(
        StateErrorCode.StoreOpenFailed,
        `cannot connect to ${redactUrl(this.options.url)}: ${String(err)}`,
        {
          cause: err,
        },
      );
    }
  }

  async get(scope: string, key: string): Promise<JsonValue | undefined> {
    this.assertOpen();
    const text = await this.redis.hget(this.hashKey(scope), key);
    return text === null ? undefined : parseStored(text);
  }

  async set(scope: string, key: string, value: JsonValue): Promise<WriteResult> {
    this.assertOpen();
    const raw = await this.redis.stateSet(this.hashKey(scope), this.scopesKey, scope, key, JSON.stringify(value));
    const old = raw === null ? undefined : parseStored(raw);
    this.feed.emit(changeOf(scope, key, old, value));
    return { old_value: old, new_value: value };
  }

  async delete(scope: string, key: string): Promise<JsonValue | undefined> {
    this.assertOpen();
    const raw = await this.redis.stateDelete(this.hashKey(scope), this.scopesKey, scope, key);
    if (raw === null) return undefined;
    const old = parseStored(raw);
    this.feed.emit(changeOf(scope, key, old, undefined));
    return old;
  }

  async update(scope: string, key: string, mutate: Mutation): Promise<UpdateResult> {
    this.assertOpen();
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const raw = await this.redis.hget(this.hashKey(scope), key);
      const current = raw === null ? undefined : parseStored(raw);
      const next = mutate(current);
      if (next === undefined) return { old_value: current, new_value: current, written: false };
      const exists = raw === null ? '0' : '1';
      const args = [scope, key, exists, raw ?? '', JSON.stringify(next)];
      if ((await this.redis.stateCas(this.hashKey(scope), this.scopesKey, ...args)) === 1) {
        this.feed.emit(changeOf(scope, key, current, next));
        return { old_value: current, new_value: next, written: true };
      }
    }
    throw new StoreError(
      StateErrorCode.UpdateConflict,
      `state::update of ${scope}/${key} lost the race ${MAX_CAS_ATTEMPTS} times in a row; retry later`,
    );
  }

  async list(scope: string): Promise<StateEntry[]> {
    this.assertOpen();
    const all = await this.redis.hgetall(this.hashKey(scope));
    return Object.entries(all)
      .map(([key, text]) => ({ key, value: parseStored(text) }))
      .sort(byKey);
  }

  async listGroups(): Promise<string[]> {
    this.assertOpen();
    return (await this.redis.smembers(this.scopesKey)).sort();
  }

  onChange(listener: ChangeListener): void {
    this.feed.set(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.feed.clear();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private hashKey(scope: string): string {
    return `${this.options.keyPrefix}scope:${scope}`;
  }

  private get scopesKey(): string {
    return `${this.options.keyPrefix}scopes`;
  }

  private assertOpen(): void {
    if (this.closed) throw closedError();
  }
}

/** The URL without its password, for error messages. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
