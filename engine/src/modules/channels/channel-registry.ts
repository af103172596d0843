/**
 * Every live data channel by id (no I/O: sockets arrive through `Channel.attach`, time through `nowMs`).
 *
 * Channels are removed when both ends are done, when their owner worker disconnects (`removeOwnedBy`), when
 * someone holding the key removes them, or by `sweep`: a channel whose end was never taken within `idleTtlMs` of
 * its creation (an ownerless channel nobody came for) is dropped with whatever it buffered.
 */
import { newUuid, randomBase64url } from '@svc/sdk/core';
import { Channel, ChannelMemory, CLOSE_GOING_AWAY, type ChannelDirection } from './channel.js';

export const DEFAULT_BUFFER_SIZE = 64;
export const MAX_BUFFER_SIZE = 1024;
/** An end never taken 5 minutes after creation: the channel is swept. */
export const DEFAULT_IDLE_TTL_MS = 5 * 60_000;

/** What `engine::channels::create` returns for each end (iii's `StreamChannelRef`). */
export interface StreamChannelRef {
  channel_id: string;
  access_key: string;
  direction: ChannelDirection;
}

/** An access key: 24 bytes from the CSPRNG as base64url (from the SDK's pool of random bytes, each byte used once). */
const KEY_BYTES = 24;

/**
 * Constant-time comparison of two keys: every character is compared whatever the first difference (no early
 * exit), without the two buffers `timingSafeEqual` needs (a lookup per channel call; the copies showed in
 * profiles). A different length is refused at once: our keys all have the same length, so that tells nothing.
 */
export function sameKey(want: string, got: string): boolean {
  if (want.length !== got.length) return false;
  let diff = 0;
  for (let i = 0; i < want.length; i++) diff |= want.charCodeAt(i) ^ got.charCodeAt(i);
  return diff === 0;
}

export class ChannelRegistry {
  private readonly channels = new Map<string, Channel>();
  /** The bytes all channels hold together, against the engine's budget for them. */
  readonly memory: ChannelMemory;

  constructor(
    private readonly idleTtlMs = DEFAULT_IDLE_TTL_MS,
    memoryBudget?: number,
  ) {
    this.memory = new ChannelMemory(memoryBudget);
  }

  get size(): number {
    return this.channels.size;
  }

  create(bufferSize: number, ownerId: string | undefined, nowMs: number): Channel {
    return this.add(newUuid(), randomBase64url(KEY_BYTES), bufferSize, ownerId, nowMs);
  }

  /** A channel under an id and key chosen elsewhere (a leased channel, made when an end is first asked for). */
  add(id: string, accessKey: string, bufferSize: number, ownerId: string | undefined, nowMs: number): Channel {
    const channel = new Channel({
      id,
      accessKey,
      bufferSize: clampBufferSize(bufferSize),
      createdAtMs: nowMs,
      ownerId,
      memory: this.memory,
      onGone: (ch) => {
        if (this.channels.get(ch.id) === ch) this.channels.delete(ch.id);
      },
    });
    this.channels.set(channel.id, channel);
    return channel;
  }

  /** The channel when `accessKey` matches (compared in constant time), else undefined. */
  find(channelId: string, accessKey: string): Channel | undefined {
    const channel = this.channels.get(channelId);
    if (!channel) return undefined;
    return sameKey(channel.accessKey, accessKey) ? channel : undefined;
  }

  removeOwnedBy(workerId: string): number {
    let removed = 0;
    for (const channel of [...this.channels.values()]) {
      if (channel.ownerId !== workerId) continue;
      channel.remove(CLOSE_GOING_AWAY, 'owner_disconnected');
      removed++;
    }
    return removed;
  }

  /** Drops channels past their idle deadline that still wait for an end; returns how many. */
  sweep(nowMs: number): number {
    let removed = 0;
    for (const channel of [...this.channels.values()]) {
      if (!channel.waitingForAnEnd || nowMs - channel.createdAtMs < this.idleTtlMs) continue;
      channel.remove(CLOSE_GOING_AWAY, 'channel_expired');
      removed++;
    }
    return removed;
  }

  clear(): void {
    for (const channel of [...this.channels.values()]) channel.remove(CLOSE_GOING_AWAY, 'engine_stopping');
  }
}

export function refsOf(channel: Channel): { writer: StreamChannelRef; reader: StreamChannelRef } {
  const { id, accessKey } = channel;
  return {
    writer: { channel_id: id, access_key: accessKey, direction: 'write' },
    reader: { channel_id: id, access_key: accessKey, direction: 'read' },
  };
}

/** Default 64; capped at 1024; at least 1. */
export function clampBufferSize(value: number): number {
  if (!Number.isFinite(value)) return DEFAULT_BUFFER_SIZE;
  return Math.min(MAX_BUFFER_SIZE, Math.max(1, Math.floor(value)));
}
