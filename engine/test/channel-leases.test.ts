/**
 * Leased channels without sockets: a lease's holder names channels and derives their keys itself; the engine makes
 * one only when an end is first asked for, at most once, never under the retired numbers, and only for its holder's
 * lease while the holder is connected.
 */
import { describe, expect, it } from 'vitest';
import { leasedChannelBase, leasedChannelId, leasedChannelKey } from '@svc/sdk/core';
import { ChannelLeases } from '../src/modules/channels/channel-leases.js';
import { ChannelRegistry } from '../src/modules/channels/channel-registry.js';
import type { Channel } from '../src/modules/channels/channel.js';
import { MemorySocket } from './memory-socket.js';

function setup(): { registry: ChannelRegistry; leases: ChannelLeases; notified: Channel[] } {
  const registry = new ChannelRegistry();
  const notified: Channel[] = [];
  const leases = new ChannelLeases(registry, (channel) => {
    void channel.whenWriterTaken().then((taken) => taken && notified.push(channel));
  });
  return { registry, leases, notified };
}

/** The id and key of channel `kind` of number `n` under a lease, as its holder names them. */
function named(lease: { prefix: string; secret: string }, n: number, kind: 'b' | 'r'): [string, string] {
  return [leasedChannelId(lease.prefix, n, kind), leasedChannelKey(lease.secret, leasedChannelBase(lease.prefix, n))];
}

describe('leased channels', () => {
  it('makes a named channel when an end is first asked for, with the key derived from the secret only', () => {
    const { registry, leases } = setup();
    const lease = leases.grant('w1', undefined);
    expect(registry.size).toBe(0);
    const [id, key] = named(lease, 7, 'r');
    expect(key).toHaveLength(32);
    expect(
      leases.open(
        id,
        key.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')),
        0,
      ),
    ).toBeUndefined();
    expect(leases.open(id, named({ ...lease, secret: 'other' }, 7, 'r')[1], 0)).toBeUndefined();
    expect(leases.open(`${id}x`, key, 0)).toBeUndefined();
    expect(leases.open(id.toUpperCase(), key, 0)).toBeUndefined();
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/); // a UUID, as the wire says
    const channel = leases.open(id, key, 0);
    expect(channel?.id).toBe(id);
    expect(channel?.ownerId).toBe('w1');
    expect(registry.find(id, key)).toBe(channel);
    // the same number's other kind has the same key but is its own channel
    const [bodyId] = named(lease, 7, 'b');
    expect(leases.open(bodyId, key, 0)).not.toBe(channel);
  });

  it('makes each channel once: a finished one cannot be opened again', () => {
    const { registry, leases } = setup();
    const lease = leases.grant('w1', undefined);
    const [id, key] = named(lease, 0, 'b');
    const body = leases.open(id, key, 0) as Channel;
    const reader = new MemorySocket();
    body.attach('read', reader);
    // a `b` channel is a request body that is already over: the reader gets its normal end at once
    expect(reader.sent).toEqual([]);
    expect(reader.closed).toEqual({ code: 1000, reason: 'stream_complete' });
    expect(registry.find(id, key)).toBeUndefined();
    expect(leases.open(id, key, 0)).toBeUndefined();
  });

  it('calls the notify function once the write end of a response channel is taken', async () => {
    const { leases, notified } = setup();
    const lease = leases.grant('w1', 'svc-http::opened');
    const [id, key] = named(lease, 3, 'r');
    const channel = leases.open(id, key, 0) as Channel;
    channel.attach('write', new MemorySocket());
    await Promise.resolve();
    expect(notified).toEqual([channel]);
  });

  it('refuses retired numbers and removes their channels that still wait for an end; only the holder retires', () => {
    const { registry, leases } = setup();
    const lease = leases.grant('w1', undefined);
    const [waitingId, waitingKey] = named(lease, 1, 'r');
    const waiting = leases.open(waitingId, waitingKey, 0) as Channel;
    const writer = new MemorySocket();
    waiting.attach('write', writer);
    const [bothId, bothKey] = named(lease, 2, 'r');
    const both = leases.open(bothId, bothKey, 0) as Channel;
    both.attach('write', new MemorySocket());
    both.attach('read', new MemorySocket());

    expect(leases.retire('w2', lease.prefix, 10)).toBe(0);
    expect(registry.size).toBe(2);
    expect(leases.retire('w1', lease.prefix, 10)).toBe(1);
    expect(writer.closed?.code).toBe(1001);
    expect(registry.find(waitingId, waitingKey)).toBeUndefined();
    expect(registry.find(bothId, bothKey)).toBe(both); // in use by both ends: it lives on
    expect(leases.open(...named(lease, 9, 'r'), 0)).toBeUndefined();
    expect(leases.open(...named(lease, 10, 'r'), 0)).toBeDefined();
    // retiring never goes back
    expect(leases.retire('w1', lease.prefix, 5)).toBe(0);
    expect(leases.open(...named(lease, 9, 'b'), 0)).toBeUndefined();
  });

  it('ends a lease with its holder; a worker holding too many loses its oldest', () => {
    const { leases } = setup();
    const first = leases.grant('w1', undefined);
    const other = leases.grant('w2', undefined);
    leases.revokeOwnedBy('w1');
    expect(leases.open(...named(first, 0, 'r'), 0)).toBeUndefined();
    expect(leases.open(...named(other, 0, 'r'), 0)).toBeDefined();

    const held = Array.from({ length: 9 }, () => leases.grant('w3', undefined));
    expect(leases.open(...named(held[0] as { prefix: string; secret: string }, 0, 'r'), 0)).toBeUndefined();
    expect(leases.open(...named(held[1] as { prefix: string; secret: string }, 0, 'r'), 0)).toBeDefined();
  });
});
