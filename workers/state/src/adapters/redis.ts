/**
 * `KvserverAdapter`: state in Redis through ioredis (`kvserver_url`), shared by every svc-state process and engine
 * that uses the same Redis and `key_prefix`.
 *
 * Layout: one hash per scope (`<prefix>scope:<scope>`, field = key, value = JSON text) and a set of scopes
 * (`<prefix>scopes`). `set` and `delete` are single Lua scripts; `update` is an optimistic read → mutate →
 * compare-and-set loop. So `old_value` is always exactly the value the write replaced.
 *
 * Consecutive sets of one turn of the event loop are written by one script call (`SET_SCOPE_SCRIPT` when they share
 * a scope, else `SET_MANY_SCRIPT`; each write in its order, each with its exact old value; a lone set is a run of
 * one), and consecutive gets by one `HMGET` (one scope) or one script call, so a burst costs one command, one socket
 * write, one reply and one timer in this process instead of one per call, and Redis runs one script instead of many.
 * Every other command first sends what waits, so Redis applies the calls in the order they were made. Other commands
 * (delete, update, list) are written as they are called: ioredis's auto-pipelining is off, since with the batching
 * above it only wrapped each turn's one command in a pipeline and put off its write by one more tick (`state::get`
 * took ~2 µs more CPU per call in svc-state with it on).
 *
 * The change feed carries the changes this process committed, in the order Redis applied them (one connection,
 * pipelined or not: replies come back in commit order). Triggers therefore fire in the process that committed the
 * write, once; the other replicas, which hold the same bindings, do not see it. See the README ("Triggers with
 * several replicas").
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { CAS_SCRIPT, DELETE_SCRIPT, GET_MANY_SCRIPT, SET_MANY_SCRIPT, SET_SCOPE_SCRIPT } from './redis-scripts.js';
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
/** The most calls one batched command carries (a longer run of one turn is sent as several, in order). */
const MAX_BATCH = 256;

interface ScriptedRedis extends Redis {
  stateSetMany(keyCount: number, ...keysThenArgs: string[]): Promise<(string | null)[]>;
  stateSetScope(scopes: string, hash: string, ...args: string[]): Promise<(string | null)[]>;
  stateGetMany(keyCount: number, ...keysThenArgs: string[]): Promise<(string | null)[]>;
  stateDelete(hash: string, scopes: string, scope: string, key: string): Promise<string | null>;
  stateCas(hash: string, scopes: string, ...args: string[]): Promise<number>;
}

/** A set or get of this turn, waiting to be sent with the others next to it. */
interface Queued {
  /** The JSON to write (a set), or undefined (a get). */
  readonly json: string | undefined;
  readonly scope: string;
  readonly key: string;
  readonly value: JsonValue | undefined;
  /** A get that answers the stored text as it is (`getJson`). */
  readonly asText: boolean;
  readonly resolve: (value: never) => void;
  readonly reject: (err: unknown) => void;
}

export class RedisAdapter implements StateAdapter {
  private readonly redis: ScriptedRedis;
  private readonly feed: LocalFeed;
  private closed = false;
  /** Sets and gets of this turn, in call order; sent at the end of the turn or before any other command. */
  private queued: Queued[] = [];
  private readonly sendQueued = (): void => this.flush();

  constructor(private readonly options: RedisAdapterOptions) {
    const redis = new Redis(options.url, {
      lazyConnect: true,
      maxRetriesPerRequest: 3,
      commandTimeout: 10_000,
      enableAutoPipelining: false,
    });
    redis.defineCommand('stateDelete', { numberOfKeys: 2, lua: DELETE_SCRIPT });
    redis.defineCommand('stateCas', { numberOfKeys: 2, lua: CAS_SCRIPT });
    redis.defineCommand('stateSetMany', { lua: SET_MANY_SCRIPT });
    redis.defineCommand('stateSetScope', { numberOfKeys: 2, lua: SET_SCOPE_SCRIPT });
    redis.defineCommand('stateGetMany', { lua: GET_MANY_SCRIPT });
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

  get(scope: string, key: string): Promise<JsonValue | undefined> {
    return this.enqueue(undefined, scope, key, undefined, false);
  }

  getJson(scope: string, key: string): Promise<string | undefined> {
    return this.enqueue(undefined, scope, key, undefined, true);
  }

  set(scope: string, key: string, value: JsonValue, json?: string): Promise<WriteResult> {
    let text: string;
    try {
      text = json ?? JSON.stringify(value); // now: the caller may change its object once the call returns
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return this.enqueue(text, scope, key, value, false);
  }

  async delete(scope: string, key: string): Promise<JsonValue | undefined> {
    this.assertOpen();
    this.flush();
    const raw = await this.redis.stateDelete(this.hashKey(scope), this.scopesKey, scope, key);
    if (raw === null) return undefined;
    const old = parseStored(raw);
    this.feed.emit(changeOf(scope, key, old, undefined));
    return old;
  }

  async update(scope: string, key: string, mutate: Mutation): Promise<UpdateResult> {
    this.assertOpen();
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      this.flush();
      const raw = await this.redis.hget(this.hashKey(scope), key);
      const current = raw === null ? undefined : parseStored(raw);
      const next = mutate(current);
      if (next === undefined) return { old_value: current, new_value: current, written: false };
      const exists = raw === null ? '0' : '1';
      const args = [scope, key, exists, raw ?? '', JSON.stringify(next)];
      this.flush();
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
    this.flush();
    const all = await this.redis.hgetall(this.hashKey(scope));
    return Object.entries(all)
      .map(([key, text]) => ({ key, value: parseStored(text) }))
      .sort(byKey);
  }

  async listGroups(): Promise<string[]> {
    this.assertOpen();
    this.flush();
    return (await this.redis.smembers(this.scopesKey)).sort();
  }

  onChange(listener: ChangeListener): void {
    this.feed.set(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.flush(); // what was called before close is sent before QUIT
    this.feed.clear();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private enqueue<T>(
    json: string | undefined,
    scope: string,
    key: string,
    value: JsonValue | undefined,
    asText: boolean,
  ): Promise<T> {
    if (this.closed) return Promise.reject(closedError());
    return new Promise<T>((resolve, reject) => {
      if (this.queued.push({ json, scope, key, value, asText, resolve, reject }) === 1)
        process.nextTick(this.sendQueued);
    });
  }

  /** Sends the queued sets and gets: each run of one kind as one command (at most `MAX_BATCH` calls each). */
  private flush(): void {
    const queued = this.queued;
    if (queued.length === 0) return;
    this.queued = [];
    let from = 0;
    while (from < queued.length) {
      const isSet = queued[from]!.json !== undefined;
      let to = from + 1;
      while (to < queued.length && to - from < MAX_BATCH && (queued[to]!.json !== undefined) === isSet) to++;
      const run = queued.slice(from, to);
      if (isSet) this.sendSets(run);
      else this.sendGets(run);
      from = to;
    }
  }

  private sendSets(run: Queued[]): void {
    const settle = (olds: readonly (string | null)[]): void => {
      // the feed gets the writes in the order Redis applied them, the order of the calls: every write's change is
      // emitted one step after its script's reply, as delete and update do theirs
      for (let i = 0; i < run.length; i++) {
        const { scope, key, value, resolve } = run[i]!;
        let raw = olds[i] ?? null;
        let old: JsonValue | undefined;
        if (raw !== null) {
          old = this.storedValue(raw, scope, key);
          if (old === undefined) raw = null; // written over; what it replaced cannot be answered
        }
        this.feed.emit(changeOf(scope, key, old, value));
        (resolve as (result: WriteResult) => void)({ old_value: old, new_value: value!, old_json: raw });
      }
    };
    const fail = (err: unknown): void => rejectAll(run, err);
    const scope = run[0]!.scope;
    if (run.every((q) => q.scope === scope)) {
      const args: string[] = [scope];
      for (const { key, json } of run) args.push(key, json!);
      this.redis.stateSetScope(this.scopesKey, this.hashKey(scope), ...args).then(settle, fail);
      return;
    }
    const keys = [this.scopesKey];
    const args: string[] = [];
    for (const { scope, key, json } of run) {
      keys.push(this.hashKey(scope));
      args.push(scope, key, json!);
    }
    this.redis.stateSetMany(keys.length, ...keys, ...args).then(settle, fail);
  }

  private sendGets(run: Queued[]): void {
    const settle = (texts: readonly (string | null)[]): void => {
      for (let i = 0; i < run.length; i++) {
        const text = texts[i] ?? null;
        const { asText, scope, key, resolve, reject } = run[i]!;
        if (text === null) {
          resolve(undefined as never);
          continue;
        }
        // parsed even for getJson: the keyspace is shared, and a text another program wrote is checked here
        const value = this.storedValue(text, scope, key);
        if (value === undefined) reject(invalidStored(scope, key));
        else (resolve as (answer: JsonValue | string) => void)(asText ? text : value);
      }
    };
    const fail = (err: unknown): void => rejectAll(run, err);
    const first = run[0]!;
    if (run.every((q) => q.scope === first.scope)) {
      this.redis.hmget(this.hashKey(first.scope), ...run.map((q) => q.key)).then(settle, fail);
    } else {
      const keys = run.map((q) => this.hashKey(q.scope));
      this.redis.stateGetMany(run.length, ...keys, ...run.map((q) => q.key)).then(settle, fail);
    }
  }

  /** A stored text's value, or undefined (logged) when it is not JSON: another program wrote it. */
  private storedValue(text: string, scope: string, key: string): JsonValue | undefined {
    try {
      return parseStored(text);
    } catch {
      this.options.logger?.warn({ scope, key }, invalidStored(scope, key).message);
      return undefined;
    }
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

function invalidStored(scope: string, key: string): StoreError {
  return new StoreError(
    StateErrorCode.StoredValueInvalid,
    `the value stored in Redis for ${scope}/${key} is not valid JSON (written there by another program?)`,
  );
}

function rejectAll(run: readonly Queued[], err: unknown): void {
  for (const q of run) q.reject(err);
}

/** The URL without its password, for error messages. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
