/**
 * `modules::stream::adapters::Bridge`: the streams of another engine (`bridge_url`), used as if local. Every
 * operation is forwarded to that engine's `stream::*` functions, so its svc-stream owns storage, atomicity and
 * durability; this adapter owns one SDK connection to it (reconnecting on its own, registrations replayed).
 *
 * Change feed: the first time this adapter touches a stream, it binds a `stream` trigger for that stream on the
 * remote engine to a feed function of its own. The binding is sent on the same connection before the operation, so
 * every change the remote makes to that stream from then on (through this adapter, another bridged engine, or the
 * remote's own workers) reaches the listeners, once, in the order the remote made them.
 *
 * Limits: `update` forwards the ops (an update given as a bare function cannot be forwarded: `update_unsupported`);
 * change events of custom stream implementations (`publish` of a create/update/delete) reach only this process's
 * listeners, because the remote accepts only custom events (`stream::send`) from outside.
 */
import { randomUUID } from 'node:crypto';
import {
  readyWithin,
  registerWorker,
  type SvcClient,
  type UpdateOp,
  type UpdateOpError,
  type UpdateOutcome,
} from '@svc/sdk';
import type { Logger } from 'pino';
import { StreamErrorCode } from '../error-codes.js';
import { wrap, type StreamWrapperMessage } from '../messages.js';
import { parseWrapperMessage } from '../wrapper-guard.js';
import { AdapterClosedError, type ChangeListener, type StreamAdapter, type StreamMetadata } from './types.js';

/** An update function that also says which ops it applies (the store attaches them; see store.ts). */
export type OpsUpdate = ((current: unknown) => UpdateOutcome) & { readonly ops?: readonly UpdateOp[] };

export interface BridgeStreamOptions {
  url: string;
  logger: Logger;
  /** How long `start()` waits for the remote engine; default 10000 ms. */
  connectTimeoutMs?: number;
  /** Deadline of each forwarded call; default 10000 ms. */
  callTimeoutMs?: number;
}

export class UpdateUnsupportedError extends Error {
  readonly code = StreamErrorCode.UpdateUnsupported;
}

export class BridgeStreamAdapter implements StreamAdapter {
  readonly name = 'bridge';
  private client: SvcClient | undefined;
  private readonly listeners = new Set<ChangeListener>();
  private readonly watched = new Set<string>();
  private readonly feedId = `stream::bridge::feed::${randomUUID()}`;
  private closed = false;

  constructor(private readonly options: BridgeStreamOptions) {}

  async start(): Promise<void> {
    const client = registerWorker(this.options.url, {
      workerName: 'svc-stream-bridge',
      logger: this.options.logger.child({ bridge: this.options.url }),
      reconnectionConfig: { initialDelayMs: 100, maxDelayMs: 2000 },
    });
    client.registerFunction(this.feedId, (payload: unknown) => this.onFeed(payload), {
      description: 'change feed of a bridged svc-stream',
    });
    const timeoutMs = this.options.connectTimeoutMs ?? 10_000;
    await readyWithin(client, timeoutMs, () =>
      Object.assign(new Error(`engine ${this.options.url} not reachable in ${timeoutMs} ms`), {
        code: StreamErrorCode.StoreOpenFailed,
      }),
    );
    this.client = client;
  }

  async get(stream: string, group: string, item: string): Promise<unknown> {
    return this.call('stream::get', stream, { group_id: group, item_id: item });
  }

  async set(stream: string, group: string, item: string, value: unknown) {
    const data = value ?? null;
    const r = await this.call<{ old_value?: unknown }>('stream::set', stream, { group_id: group, item_id: item, data });
    const old_value = r?.old_value ?? null;
    const message = wrap(stream, group, item, { type: old_value === null ? 'create' : 'update', data });
    return { old_value, new_value: data, message };
  }

  async delete(stream: string, group: string, item: string) {
    const r = await this.call<{ old_value?: unknown }>('stream::delete', stream, { group_id: group, item_id: item });
    const old_value = r?.old_value ?? null;
    if (old_value === null) return { old_value, message: undefined };
    return { old_value, message: wrap(stream, group, item, { type: 'delete', data: old_value }) };
  }

  async update(stream: string, group: string, item: string, apply: OpsUpdate) {
    if (apply.ops === undefined) {
      throw new UpdateUnsupportedError('the bridge stream adapter forwards update ops; this update has none');
    }
    const ops = apply.ops;
    const r = await this.call<{ old_value?: unknown; new_value?: unknown; errors?: UpdateOpError[] }>(
      'stream::update',
      stream,
      { group_id: group, item_id: item, ops },
    );
    const old_value = r?.old_value ?? null;
    const new_value = r?.new_value ?? null;
    const errors = r?.errors ?? [];
    if (errors.length >= ops.length) return { old_value, new_value: old_value, errors, message: undefined };
    const type = old_value === null ? 'create' : 'update';
    return { old_value, new_value, errors, message: wrap(stream, group, item, { type, data: new_value }) };
  }

  async list(stream: string, group: string): Promise<unknown[]> {
    const items = await this.call<unknown>('stream::list', stream, { group_id: group });
    return Array.isArray(items) ? (items as unknown[]) : [];
  }

  async listGroups(stream: string): Promise<string[]> {
    const groups = await this.call<unknown>('stream::list_groups', stream, {});
    return Array.isArray(groups) ? groups.filter((g): g is string => typeof g === 'string') : [];
  }

  async listAll(): Promise<StreamMetadata[]> {
    const r = await this.remote().trigger<{ stream?: StreamMetadata[] }>({
      function_id: 'stream::list_all',
      payload: {},
    });
    return r?.stream ?? [];
  }

  async publish(message: StreamWrapperMessage): Promise<void> {
    if (message.event.type !== 'event') {
      this.deliver(message); // see the file comment: the remote takes only custom events from outside
      return;
    }
    const { type, data } = message.event.event;
    await this.call('stream::send', message.streamName, { group_id: message.groupId, id: message.id, type, data });
  }

  onMessage(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    await this.client?.shutdown();
  }

  /** Forwards one `stream::*` call, watching the stream first (see the file comment). */
  private call<T>(functionId: string, stream: string, input: Record<string, unknown>): Promise<T> {
    const client = this.remote();
    if (!this.watched.has(stream)) {
      this.watched.add(stream);
      client.registerTrigger({ type: 'stream', function_id: this.feedId, config: { stream_name: stream } });
    }
    return client.trigger<T>({
      function_id: functionId,
      payload: { stream_name: stream, ...input },
      timeoutMs: this.options.callTimeoutMs ?? 10_000,
    });
  }

  private onFeed(payload: unknown): null {
    const message = parseWrapperMessage(JSON.stringify(payload ?? null));
    if (message === undefined) {
      this.options.logger.warn('bridged stream feed: ignored a malformed change event');
      return null;
    }
    this.deliver(message);
    return null;
  }

  private deliver(message: StreamWrapperMessage): void {
    if (this.closed) return;
    for (const listener of this.listeners) listener(message);
  }

  private remote(): SvcClient {
    if (this.closed || this.client === undefined) throw new AdapterClosedError(this.name);
    return this.client;
  }
}
