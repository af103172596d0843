/**
 * `Bridge`: forwards every state operation to the `state::*` functions of another engine (`bridge_url`), so this
 * engine's workers and triggers use that engine's store. The remote engine owns atomicity, durability and value
 * limits; this adapter owns one SDK connection to it (reconnecting on its own) and reports the changes it made
 * through its feed, so the `state` triggers of this engine fire for writes made here (the remote engine's own
 * triggers fire there).
 *
 * Limits of forwarding: the remote answers `old_value: null` both for a missing key and a stored `null`, so a write
 * over a stored `null` is reported as `state:created`; `update` forwards the ops (a mutation without ops cannot be
 * forwarded); `list` needs the remote's `state::list_entries` (an svc engine has it).
 */
import { readyWithin, registerWorker, type SvcClient } from '@svc/sdk';
import type { Logger } from 'pino';
import { changeOf, LocalFeed } from './feed.js';
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

export interface BridgeAdapterOptions {
  url: string;
  logger: Logger;
  /** How long `start()` waits for the remote engine. */
  connectTimeoutMs?: number;
}

interface RemoteUpdate {
  old_value: JsonValue | null;
  new_value: JsonValue | null;
  errors?: { op_index: number; code: string; message: string }[];
}

export class BridgeAdapter implements StateAdapter {
  private client: SvcClient | undefined;
  private readonly feed: LocalFeed;
  private closed = false;

  constructor(private readonly options: BridgeAdapterOptions) {
    this.feed = new LocalFeed(options.logger);
  }

  async start(): Promise<void> {
    const client = registerWorker(this.options.url, {
      workerName: 'svc-state-bridge',
      logger: this.options.logger.child({ bridge: this.options.url }),
    });
    const timeoutMs = this.options.connectTimeoutMs ?? 10_000;
    await readyWithin(
      client,
      timeoutMs,
      () =>
        new StoreError(StateErrorCode.StoreOpenFailed, `engine ${this.options.url} not reachable in ${timeoutMs} ms`),
    );
    this.client = client;
  }

  get(scope: string, key: string): Promise<JsonValue | undefined> {
    return this.call<JsonValue | undefined>('state::get', { scope, key });
  }

  async set(scope: string, key: string, value: JsonValue): Promise<WriteResult> {
    const result = await this.call<{ old_value: JsonValue | null }>('state::set', { scope, key, value });
    const old = result.old_value ?? undefined;
    this.feed.emit(changeOf(scope, key, old, value));
    return { old_value: old, new_value: value };
  }

  async delete(scope: string, key: string): Promise<JsonValue | undefined> {
    const old = await this.call<JsonValue | undefined>('state::delete', { scope, key });
    if (old !== undefined) this.feed.emit(changeOf(scope, key, old, undefined));
    return old;
  }

  async update(scope: string, key: string, mutate: Mutation): Promise<UpdateResult> {
    if (mutate.ops === undefined) {
      throw new StoreError(
        StateErrorCode.UpdateUnsupported,
        'the bridge store forwards update ops; this update has none',
      );
    }
    const result = await this.call<RemoteUpdate>('state::update', { scope, key, ops: mutate.ops });
    const old = result.old_value ?? undefined;
    const next = result.new_value ?? undefined;
    const failedAll = (result.errors?.length ?? 0) === mutate.ops.length;
    if (!failedAll && next !== undefined) this.feed.emit(changeOf(scope, key, old, next));
    return {
      old_value: old,
      new_value: next,
      written: !failedAll,
      ...(result.errors ? { errors: result.errors } : {}),
    };
  }

  async list(scope: string): Promise<StateEntry[]> {
    const result = await this.call<{ entries?: StateEntry[] }>('state::list_entries', { scope });
    return result.entries ?? [];
  }

  async listGroups(): Promise<string[]> {
    const result = await this.call<{ groups?: string[] }>('state::list_groups', {});
    return result.groups ?? [];
  }

  onChange(listener: ChangeListener): void {
    this.feed.set(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.feed.clear();
    await this.client?.shutdown();
  }

  private call<T>(functionId: string, payload: unknown): Promise<T> {
    if (this.closed || this.client === undefined) return Promise.reject(closedError());
    return this.client.trigger<T>({ function_id: functionId, payload });
  }
}
