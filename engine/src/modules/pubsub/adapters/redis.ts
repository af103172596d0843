/**
 * `modules::pubsub::KvserverAdapter`: Redis pub/sub across engine instances. `publish` goes to Redis (channel
 * `<prefix><topic>`, body `{"data": …}`); each engine SUBSCRIBEs to the channels of the topics it has subscribers
 * for and delivers what arrives to its own bindings, including messages it published itself (there is no local
 * short-cut, so every subscriber sees one order: Redis's).
 *
 * Owns two ioredis connections (commands, and one in subscriber mode that re-subscribes after a reconnect).
 * `publish` fails at once with `publish_failed` while Redis is unreachable (no offline queue: a message is never
 * silently held back and delivered minutes later). `close()` is idempotent.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { InvocationError } from '@svc/sdk/core';
import { type Deliver, type PubSubAdapter } from './types.js';
import { ModuleErrorCode } from '../../../error-codes.js';
import { dataText } from '../data-text.js';

export interface KvserverPubSubOptions {
  kvserver_url: string;
  /** Channel prefix; lets several independent deployments share one Redis. */
  channel_prefix?: string;
}

const DEFAULT_PREFIX = 'svc:pubsub:';

export class KvserverAdapter implements PubSubAdapter {
  readonly name = 'modules::pubsub::KvserverAdapter';
  private pub: Redis | undefined;
  private sub: Redis | undefined;
  private readonly prefix: string;
  private closed = false;
  private logger: Logger | undefined;

  constructor(private readonly options: KvserverPubSubOptions) {
    this.prefix = options.channel_prefix ?? DEFAULT_PREFIX;
  }

  async start(deliver: Deliver, logger: Logger): Promise<void> {
    this.logger = logger;
    const common = { retryStrategy: () => 250, connectTimeout: 2000 };
    this.pub = new Redis(this.options.kvserver_url, { ...common, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    // The subscriber queues (un)subscribe commands while reconnecting and re-subscribes once it is back.
    this.sub = new Redis(this.options.kvserver_url, { ...common, enableOfflineQueue: true });
    for (const conn of [this.pub, this.sub]) {
      conn.on('error', (err: Error) => this.logger?.warn({ err: err.message }, 'pubsub: Redis connection error'));
    }
    this.sub.on('message', (channel: string, message: string) => this.onMessage(channel, message, deliver));
    await Promise.all([ready(this.pub), ready(this.sub)]);
  }

  async publish(topic: string, data: unknown, traceparent?: string): Promise<void> {
    const body = dataText(topic, traceparent ? { data: data ?? null, traceparent } : { data: data ?? null });
    try {
      await this.connection(this.pub).publish(this.prefix + topic, body);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new InvocationError({
        code: ModuleErrorCode.PublishFailed,
        message: `publish to '${topic}' failed: Redis: ${why}`,
      });
    }
  }

  async subscribe(topic: string): Promise<void> {
    await this.connection(this.sub).subscribe(this.prefix + topic);
  }

  async unsubscribe(topic: string): Promise<void> {
    await this.connection(this.sub).unsubscribe(this.prefix + topic);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(
      [this.pub, this.sub].map((conn) => conn?.quit().catch(() => conn.disconnect()) ?? Promise.resolve()),
    );
    this.pub = this.sub = undefined;
  }

  private connection(conn: Redis | undefined): Redis {
    if (!conn) throw new InvocationError({ code: ModuleErrorCode.PublishFailed, message: 'pubsub adapter is closed' });
    return conn;
  }

  private onMessage(channel: string, message: string, deliver: Deliver): void {
    if (!channel.startsWith(this.prefix)) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      this.logger?.warn({ channel }, 'pubsub: dropped a message that is not JSON');
      return;
    }
    if (typeof parsed !== 'object' || parsed === null || !('data' in parsed)) {
      this.logger?.warn({ channel }, 'pubsub: dropped a message without a data field');
      return;
    }
    const { data, traceparent } = parsed as { data: unknown; traceparent?: unknown };
    try {
      deliver(channel.slice(this.prefix.length), data, typeof traceparent === 'string' ? traceparent : undefined);
    } catch (err) {
      this.logger?.warn({ channel, err }, 'pubsub: dropped a message that could not be delivered');
    }
  }
}

/** Resolves when the connection is ready or its first attempt failed (Redis down must not block the engine). */
function ready(conn: Redis): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      conn.off('ready', done);
      conn.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, 2000);
    conn.once('ready', done);
    conn.once('error', done);
  });
}
