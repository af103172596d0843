import type { StreamAdapter, UpdateResult } from './adapters/types.js';
import type { CustomStreams } from './custom-streams.js';
import { wrap, type StreamWrapperMessage, type SubscriptionRequest } from './messages.js';
import { applyUpdateOps, type JsonValue, type UpdateOp } from '@svc/sdk';

export interface ItemKey {
  stream_name: string;
  group_id: string;
  item_id: string;
}

type Change = { message: StreamWrapperMessage | undefined };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The stream operations as the functions and the sync see them: a custom implementation (`stream::<op>(<stream>)`)
 * when one is registered, the adapter otherwise. A custom write's change event is still published through the
 * adapter, so clients get it the same way.
 */
export class StreamStore {
  constructor(
    private readonly adapter: StreamAdapter,
    private readonly custom: CustomStreams | undefined,
  ) {}

  async get(key: ItemKey): Promise<unknown> {
    if (this.custom?.has('get', key.stream_name)) return this.custom.call('get', key.stream_name, key);
    return this.adapter.get(key.stream_name, key.group_id, key.item_id);
  }

  async list(stream_name: string, group_id: string): Promise<unknown[]> {
    if (this.custom?.has('list', stream_name)) {
      const items = await this.custom.call<unknown>('list', stream_name, { stream_name, group_id });
      return Array.isArray(items) ? (items as unknown[]) : [];
    }
    return this.adapter.list(stream_name, group_id);
  }

  async listGroups(stream_name: string): Promise<string[]> {
    if (this.custom?.has('list_groups', stream_name)) {
      const groups = await this.custom.call<unknown>('list_groups', stream_name, { stream_name });
      return Array.isArray(groups) ? groups.filter((g): g is string => typeof g === 'string') : [];
    }
    return this.adapter.listGroups(stream_name);
  }

  async set(key: ItemKey, data: unknown): Promise<{ old_value: unknown; new_value: unknown } & Change> {
    if (!this.custom?.has('set', key.stream_name)) {
      return this.adapter.set(key.stream_name, key.group_id, key.item_id, data);
    }
    const result = await this.custom.call<unknown>('set', key.stream_name, { ...key, data });
    const old_value = isRecord(result) ? (result.old_value ?? null) : null;
    const new_value = isRecord(result) && 'new_value' in result ? result.new_value : data;
    const type = old_value === null ? 'create' : 'update';
    const message = await this.publish(wrap(key.stream_name, key.group_id, key.item_id, { type, data: new_value }));
    return { old_value, new_value, message };
  }

  async delete(key: ItemKey): Promise<{ old_value: unknown } & Change> {
    if (!this.custom?.has('delete', key.stream_name)) {
      return this.adapter.delete(key.stream_name, key.group_id, key.item_id);
    }
    const result = await this.custom.call<unknown>('delete', key.stream_name, key);
    const old_value = isRecord(result) ? (result.old_value ?? null) : null;
    if (old_value === null) return { old_value, message: undefined };
    const message = await this.publish(
      wrap(key.stream_name, key.group_id, key.item_id, { type: 'delete', data: old_value }),
    );
    return { old_value, message };
  }

  async update(key: ItemKey, ops: UpdateOp[]): Promise<UpdateResult & Change> {
    if (!this.custom?.has('update', key.stream_name)) {
      // Stored items are JSON: the adapters keep them as JSON text and hand back what they parsed.
      // The ops ride along for an adapter that forwards them instead of applying them (the bridge).
      const apply = Object.assign((current: unknown) => applyUpdateOps(current as JsonValue | undefined, ops), {
        ops,
      });
      return this.adapter.update(key.stream_name, key.group_id, key.item_id, apply);
    }
    const result = await this.custom.call<unknown>('update', key.stream_name, { ...key, ops });
    const r = isRecord(result) ? result : {};
    const old_value = r.old_value ?? null;
    const new_value = r.new_value ?? null;
    const errors = Array.isArray(r.errors) ? (r.errors as UpdateResult['errors']) : [];
    const type = old_value === null ? 'create' : 'update';
    const message = await this.publish(wrap(key.stream_name, key.group_id, key.item_id, { type, data: new_value }));
    return { old_value, new_value, errors, message };
  }

  /** The `sync` data of a subscription: the group's items, or the item (null when missing). */
  async snapshot(request: SubscriptionRequest): Promise<unknown> {
    if (request.id === null) return this.list(request.streamName, request.groupId);
    const item = await this.get({ stream_name: request.streamName, group_id: request.groupId, item_id: request.id });
    return item ?? null;
  }

  async publish(message: StreamWrapperMessage): Promise<StreamWrapperMessage> {
    await this.adapter.publish(message);
    return message;
  }
}
