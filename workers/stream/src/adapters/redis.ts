import { Redis } from 'ioredis';
import { frameTimestamp } from '../clock.js';
import type { StreamWrapperMessage } from '../messages.js';
import { parseWrapperMessage } from '../wrapper-guard.js';
import type { UpdateOutcome } from '@svc/sdk';
import type { ChangeListener, StreamAdapter, StreamMetadata } from './types.js';
import { AdapterClosedError } from './types.js';
import { StreamErrorCode } from '../error-codes.js';

export interface RedisAdapterOptions {
  url: string;
  /** Prepended to every key and to the channel, so several deployments (or test runs) can share one Redis. */
  keyPrefix: string;
  /** CLIENT SETNAME of every connection (default `svc-stream`), to find them in `CLIENT LIST`. */
  connectionName?: string;
  onError?: (error: unknown) => void;
}

// Write + PUBLISH in one script: the event order on the channel is the commit order, and no write is ever left
// without its event (or the reverse). ARGV: item, value, channel, head (the frame up to the event type).
const SET_SCRIPT = `
local old = redis.call('HGET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local kind = 'create'
if old then kind = 'update' end
redis.call('PUBLISH', ARGV[3], ARGV[4] .. kind .. '","data":' .. ARGV[2] .. '}}')
return old`;

// ARGV: item, channel, head (the frame up to the data).
const DELETE_SCRIPT = `
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('PUBLISH', ARGV[2], ARGV[3] .. old .. '}}')
end
return old`;

/** The scripts above, loaded once and called by SHA (ioredis `defineCommand`). */
interface ScriptCommands {
  streamSet(key: string, item: string, value: string, channel: string, head: string): Promise<string | null>;
  streamDelete(key: string, item: string, channel: string, head: string): Promise<string | null>;
}

const UPDATE_CONNECTIONS = 4;
const MAX_UPDATE_ATTEMPTS = 50;

/**
 * `KvserverAdapter`: one Redis HASH per group (`<prefix>stream:<stream>:<group>`, field = item id, value = JSON)
 * and a PUBLISH on `<prefix>stream::events` for every change. Every svc-stream process subscribes to that channel
 * and delivers to its own clients, so a client sees each change once whichever process made it (the writer gets
 * its own events back through Redis too; there is no local short-cut).
 *
 * Owns: a command connection, a subscriber connection and up to 4 connections for optimistic (WATCH/MULTI)
 * updates. `close()` unsubscribes, then quits every connection. Events published while the subscriber is
 * reconnecting are not replayed; clients re-join to get a fresh `sync`.
 */
export class RedisStreamAdapter implements StreamAdapter {
  readonly name = 'kvserver';
  private readonly commands: Redis;
  private readonly scripts: ScriptCommands;
  private readonly subscriber: Redis;
  private readonly updaters: Array<{ conn: Redis; tail: Promise<unknown> }> = [];
  private nextUpdater = 0;
  private readonly listeners = new Set<ChangeListener>();
  private readonly channel: string;
  private closed = false;

  constructor(private readonly options: RedisAdapterOptions) {
    const redisOptions = {
      maxRetriesPerRequest: 3,
      lazyConnect: true,
      connectionName: options.connectionName ?? 'svc-stream',
    };
    this.commands = new Redis(options.url, redisOptions);
    this.commands.defineCommand('streamSet', { numberOfKeys: 1, lua: SET_SCRIPT });
    this.commands.defineCommand('streamDelete', { numberOfKeys: 1, lua: DELETE_SCRIPT });
    this.scripts = this.commands as unknown as ScriptCommands;
    this.subscriber = new Redis(options.url, redisOptions);
    for (const conn of [this.commands, this.subscriber]) conn.on('error', (e) => options.onError?.(e));
    this.channel = `${options.keyPrefix}stream::events`;
  }

  async start(): Promise<void> {
    await Promise.all([this.commands.connect(), this.subscriber.connect()]);
    this.subscriber.on('message', (channel: string, text: string) => {
      if (channel !== this.channel || this.closed) return;
      const message = parseWrapperMessage(text);
      if (message) this.deliver(message);
      else this.options.onError?.(new Error('ignored a malformed message on the stream events channel'));
    });
    await this.subscriber.subscribe(this.channel);
  }

  private key(stream: string, group: string): string {
    return `${this.options.keyPrefix}stream:${stream}:${group}`;
  }

  private head(stream: string, group: string, item: string | null, timestamp: number): string {
    const envelope = JSON.stringify({ type: 'stream', timestamp, streamName: stream, groupId: group, id: item });
    return `${envelope.slice(0, -1)},"event":{"type":"`;
  }

  async get(stream: string, group: string, item: string): Promise<unknown> {
    this.assertOpen();
    const raw = await this.commands.hget(this.key(stream, group), item);
    return raw === null ? undefined : JSON.parse(raw);
  }

  async set(stream: string, group: string, item: string, value: unknown) {
    this.assertOpen();
    const data = value ?? null;
    const timestamp = frameTimestamp();
    const head = this.head(stream, group, item, timestamp);
    const old = await this.scripts.streamSet(this.key(stream, group), item, JSON.stringify(data), this.channel, head);
    const oldValue: unknown = old === null ? null : JSON.parse(old);
    const type = old === null ? ('create' as const) : ('update' as const);
    const message: StreamWrapperMessage = {
      type: 'stream',
      timestamp,
      streamName: stream,
      groupId: group,
      id: item,
      event: { type, data },
    };
    return { old_value: oldValue, new_value: data, message };
  }

  async delete(stream: string, group: string, item: string) {
    this.assertOpen();
    const timestamp = frameTimestamp();
    const head = `${this.head(stream, group, item, timestamp)}delete","data":`;
    const old = await this.scripts.streamDelete(this.key(stream, group), item, this.channel, head);
    if (old === null) return { old_value: null, message: undefined };
    const data: unknown = JSON.parse(old);
    const message: StreamWrapperMessage = {
      type: 'stream',
      timestamp,
      streamName: stream,
      groupId: group,
      id: item,
      event: { type: 'delete', data },
    };
    return { old_value: data, message };
  }

  async update(stream: string, group: string, item: string, apply: (current: unknown) => UpdateOutcome) {
    this.assertOpen();
    const slot = this.updater();
    const run = slot.tail.then(() => this.updateOn(slot.conn, stream, group, item, apply));
    slot.tail = run.catch(() => undefined);
    return run;
  }

  /** WATCH / read / MULTI write + PUBLISH / EXEC, retried when another writer touched the group meanwhile. */
  private async updateOn(
    conn: Redis,
    stream: string,
    group: string,
    item: string,
    apply: (c: unknown) => UpdateOutcome,
  ) {
    const key = this.key(stream, group);
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
      await conn.watch(key);
      const old = await conn.hget(key, item);
      const oldValue: unknown = old === null ? undefined : JSON.parse(old);
      let outcome: UpdateOutcome;
      try {
        outcome = apply(oldValue);
      } catch (error) {
        await conn.unwatch();
        throw error;
      }
      const result = { old_value: oldValue ?? null, new_value: outcome.value, errors: outcome.errors };
      if (!outcome.changed) {
        await conn.unwatch(); // nothing applied: the stored value stands
        return { ...result, new_value: oldValue ?? null, message: undefined };
      }
      const timestamp = frameTimestamp();
      const type = old === null ? ('create' as const) : ('update' as const);
      const message: StreamWrapperMessage = {
        type: 'stream',
        timestamp,
        streamName: stream,
        groupId: group,
        id: item,
        event: { type, data: outcome.value },
      };
      const done = await conn
        .multi()
        .hset(key, item, JSON.stringify(outcome.value))
        .publish(this.channel, JSON.stringify(message))
        .exec();
      if (done !== null) return { ...result, message };
    }
    throw Object.assign(new Error(`stream::update gave up after ${MAX_UPDATE_ATTEMPTS} conflicting attempts; retry`), {
      code: StreamErrorCode.StreamUpdateConflict,
    });
  }

  private updater(): { conn: Redis; tail: Promise<unknown> } {
    if (this.updaters.length < UPDATE_CONNECTIONS) {
      const conn = this.commands.duplicate();
      conn.on('error', (e) => this.options.onError?.(e));
      this.updaters.push({ conn, tail: Promise.resolve() });
    }
    const slot = this.updaters[this.nextUpdater++ % this.updaters.length];
    if (!slot) throw new Error('no update connection');
    return slot;
  }

  async list(stream: string, group: string): Promise<unknown[]> {
    this.assertOpen();
    const values = await this.commands.hvals(this.key(stream, group));
    return values.map((raw) => JSON.parse(raw) as unknown);
  }

  async listGroups(stream: string): Promise<string[]> {
    this.assertOpen();
    const prefix = this.key(stream, '');
    const keys = await this.scan(`${escapeGlob(prefix)}*`);
    return [...new Set(keys.map((k) => k.slice(prefix.length)))].sort();
  }

  /** Stream names are read up to the first ':' after `stream:`, so a stream name containing ':' is split there. */
  async listAll(): Promise<StreamMetadata[]> {
    this.assertOpen();
    const prefix = `${this.options.keyPrefix}stream:`;
    const byStream = new Map<string, Set<string>>();
    for (const key of await this.scan(`${escapeGlob(prefix)}*`)) {
      const rest = key.slice(prefix.length);
      const cut = rest.indexOf(':');
      if (cut <= 0) continue; // `stream::events` is a channel, never a key; skip anything unparsable
      const stream = rest.slice(0, cut);
      const groups = byStream.get(stream) ?? new Set<string>();
      groups.add(rest.slice(cut + 1));
      byStream.set(stream, groups);
    }
    return [...byStream.entries()]
      .map(([id, groups]) => ({ id, groups: [...groups].sort() }))
      .sort((a, b) => a.id.localeCompare(b.id));
  }

  private async scan(match: string): Promise<string[]> {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await this.commands.scan(cursor, 'MATCH', match, 'COUNT', 500);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    return keys;
  }

  async publish(message: StreamWrapperMessage): Promise<void> {
    this.assertOpen();
    await this.commands.publish(this.channel, JSON.stringify(message));
  }

  onMessage(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private deliver(message: StreamWrapperMessage): void {
    for (const listener of this.listeners) {
      try {
        listener(message);
      } catch (error) {
        this.options.onError?.(error);
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    const all = [this.subscriber, this.commands, ...this.updaters.map((u) => u.conn)];
    await Promise.all(all.map((conn) => conn.quit().catch(() => conn.disconnect())));
  }

  private assertOpen(): void {
    if (this.closed) throw new AdapterClosedError(this.name);
  }
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}
