/**
 * Leased channel namespaces (`engine::channels::lease`, `engine::channels::retire`; see the SDK's
 * channels/lease.ts for the naming): the holder names channels `leasedChannelId(prefix, n, kind)` with keys derived from the
 * lease's secret, and the engine makes such a channel only when a socket first asks for one of its ends. Until
 * then a leased channel is nothing but a name: no object, no map entry, no create or remove call.
 *
 * Each leased channel is made at most once (a number's channel that finished cannot be opened again), numbers
 * under the lease's `below` are refused, and a lease dies with its holder's connection (its channels are owned by
 * the holder, so `removeOwnedBy` drops those that were made).
 */
import { randomBytes } from 'node:crypto';
import { leasedChannelKey, leasePrefix, parseLeasedChannelId } from '@svc/sdk/core';
import type { Channel } from './channel.js';
import { DEFAULT_BUFFER_SIZE, sameKey, type ChannelRegistry } from './channel-registry.js';

/** Leases one worker may hold; asking for more drops its oldest (whose unopened channels then go). */
export const MAX_LEASES_PER_WORKER = 8;

interface Lease {
  readonly prefix: string;
  readonly secret: string;
  readonly ownerId: string;
  /** Called (void, `{channel_id}`) once the write end of one of its `r` channels is taken. */
  readonly notify: string | undefined;
  /** Numbers under this are over (`retire`). */
  below: number;
  /** The channels made so far whose number is not retired yet, by id (a made id is never made again). */
  readonly made: Map<string, { n: number; channel: Channel }>;
}

export class ChannelLeases {
  private readonly leases = new Map<string, Lease>();

  constructor(
    private readonly registry: ChannelRegistry,
    /** Arranges the lease's notify call for a response channel just made. */
    private readonly notifyWhenWriterTaken: (channel: Channel, functionId: string) => void,
  ) {}

  get size(): number {
    return this.leases.size;
  }

  grant(ownerId: string, notify: string | undefined): { prefix: string; secret: string } {
    const owned = [...this.leases.values()].filter((l) => l.ownerId === ownerId);
    if (owned.length >= MAX_LEASES_PER_WORKER) this.leases.delete((owned[0] as Lease).prefix);
    const prefix = leasePrefix(randomBytes(10));
    const secret = randomBytes(32).toString('base64url');
    this.leases.set(prefix, { prefix, secret, ownerId, notify, below: 0, made: new Map() });
    return { prefix, secret };
  }

  /**
   * The leased channel `channelId` when `accessKey` is its key and it may be made now (its number is not retired
   * and it was not made before); made here, owned by the lease's holder. Undefined otherwise.
   */
  open(channelId: string, accessKey: string, nowMs: number): Channel | undefined {
    const id = parseLeasedChannelId(channelId);
    if (id === undefined) return undefined;
    const lease = this.leases.get(id.prefix);
    if (lease === undefined || id.n < lease.below || lease.made.has(channelId)) return undefined;
    if (!sameKey(leasedChannelKey(lease.secret, id.base), accessKey)) return undefined;
    const channel = this.registry.add(channelId, accessKey, DEFAULT_BUFFER_SIZE, lease.ownerId, nowMs);
    if (id.kind === 'b') channel.prefill(Buffer.alloc(0), 64 * 1024);
    else if (lease.notify !== undefined) this.notifyWhenWriterTaken(channel, lease.notify);
    lease.made.set(channelId, { n: id.n, channel });
    return channel;
  }

  /**
   * Numbers under `below` are over: refused from now on; those made whose channel still waits for an end (nobody
   * came for the other one) are removed. Only the holder may retire; returns how many channels were removed.
   */
  retire(ownerId: string, prefix: string, below: number): number {
    const lease = this.leases.get(prefix);
    if (lease === undefined || lease.ownerId !== ownerId || below <= lease.below) return 0;
    lease.below = below;
    let removed = 0;
    for (const [channelId, { n, channel }] of lease.made) {
      if (n >= below) continue;
      lease.made.delete(channelId);
      if (channel.waitingForAnEnd && this.registry.find(channelId, channel.accessKey) === channel) {
        channel.remove();
        removed++;
      }
    }
    return removed;
  }

  /** The holder's connection is gone: its leases go (the channels made from them go with its owned channels). */
  revokeOwnedBy(ownerId: string): void {
    for (const lease of [...this.leases.values()]) if (lease.ownerId === ownerId) this.leases.delete(lease.prefix);
  }

  clear(): void {
    this.leases.clear();
  }
}
