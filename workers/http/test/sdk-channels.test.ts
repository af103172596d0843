/**
 * svc-http's request channels against a scripted engine client: under a channel lease a bodiless request's
 * channels are named (no engine call) with the keys the engine derives, and finished numbers are retired; without
 * a lease (an engine that has none) the pools of made channels serve, and they are removed after the response.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  CREATE_CHANNEL_FUNCTION,
  LEASE_CHANNELS_FUNCTION,
  leasedChannelBase,
  leasedChannelKey,
  REMOVE_CHANNEL_FUNCTION,
  RETIRE_CHANNELS_FUNCTION,
  type SvcClient,
} from '@svc/sdk';
import { sdkChannelPort } from '../src/server/sdk-channels.js';

interface Call {
  function_id: string;
  payload: Record<string, unknown>;
}

/** The engine side as svc-http sees it: answers lease and create calls, records every call. */
function scriptedClient(lease: { prefix: string; secret: string } | undefined): { client: SvcClient; calls: Call[] } {
  const calls: Call[] = [];
  let made = 0;
  const fake = {
    connectionEpoch: 0,
    registerFunction: (id: string) => ({ id, unregister: () => undefined }),
    trigger: (request: Call): Promise<unknown> => {
      calls.push(request);
      if (request.function_id === LEASE_CHANNELS_FUNCTION) {
        return lease ? Promise.resolve(lease) : Promise.reject(new Error('function_not_found'));
      }
      if (request.function_id === CREATE_CHANNEL_FUNCTION) {
        const specs = request.payload['channels'] as unknown[];
        const channels = specs.map(() => {
          const ref = { channel_id: `made-${made++}`, access_key: 'k'.repeat(32) };
          return { writer: { ...ref, direction: 'write' }, reader: { ...ref, direction: 'read' } };
        });
        return Promise.resolve({ channels });
      }
      return Promise.resolve(undefined);
    },
  };
  return { client: fake as unknown as SvcClient, calls };
}

const EMPTY = Buffer.alloc(0);

describe('svc-http request channels', () => {
  it('names the channels of bodiless requests under a lease, and retires the numbers of finished ones', async () => {
    const lease = { prefix: '0123abcd-4567-89ef-0a1b', secret: 'the-lease-secret' };
    const { client, calls } = scriptedClient(lease);
    const port = sdkChannelPort(client, 'ws://127.0.0.1:1');
    await sleep(0);

    const first = port.openReady?.(EMPTY);
    const second = port.openReady?.(EMPTY);
    const key = leasedChannelKey(lease.secret, leasedChannelBase(lease.prefix, 0));
    expect(first?.requestBodyRef).toEqual({
      channel_id: `${lease.prefix}-000000000000`,
      access_key: key,
      direction: 'read',
    });
    expect(first?.responseRef).toEqual({
      channel_id: `${lease.prefix}-100000000000`,
      access_key: key,
      direction: 'write',
    });
    expect(second?.responseRef.channel_id).toBe(`${lease.prefix}-100000000001`);
    expect(second?.responseRef.access_key).not.toBe(key);
    expect(first?.bodyWriter).toBeUndefined();

    // the second ends first: nothing below it can be retired while the first is open
    second?.release();
    await sleep(40);
    expect(calls.filter((c) => c.function_id === RETIRE_CHANNELS_FUNCTION)).toEqual([]);
    first?.release();
    await sleep(40);
    const retires = calls.filter((c) => c.function_id === RETIRE_CHANNELS_FUNCTION);
    expect(retires.map((c) => c.payload)).toEqual([{ prefix: lease.prefix, below: 2 }]);
    // nothing was made, so nothing is created or removed
    expect(calls.map((c) => c.function_id)).toEqual([LEASE_CHANNELS_FUNCTION, RETIRE_CHANNELS_FUNCTION]);
  });

  it('serves from pools of made channels when the engine grants no lease, and removes them afterwards', async () => {
    const { client, calls } = scriptedClient(undefined);
    const port = sdkChannelPort(client, 'ws://127.0.0.1:1');
    await sleep(0);
    // the first request finds the pools empty and waits for them
    const channels = await port.open(EMPTY);
    expect(channels.requestBodyRef.channel_id).toMatch(/^made-/);
    expect(channels.responseRef.channel_id).toMatch(/^made-/);
    expect(calls.some((c) => c.function_id === CREATE_CHANNEL_FUNCTION)).toBe(true);
    channels.release();
    await sleep(10);
    const removed = calls
      .filter((c) => c.function_id === REMOVE_CHANNEL_FUNCTION)
      .flatMap((c) => (c.payload['channels'] as Array<{ channel_id: string }>).map((r) => r.channel_id));
    expect(removed).toEqual([channels.requestBodyRef.channel_id, channels.responseRef.channel_id]);
  });
});
