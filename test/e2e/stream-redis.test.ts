/**
 * Two engines, each with its own svc-stream process, sharing one Redis (KvserverAdapter): a client connected to
 * one process sees a change made through the other, exactly once, and both read the same data.
 */
import type { SvcClient } from '@svc/sdk';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, waitFor, type EngineProcess } from '../harness.js';
import { rawClient, sdkClient, startStream, type StreamProcess } from './stream-helpers.js';

const REDIS_URL = process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const keyPrefix = `svc-e2e-stream-${process.pid}-${Date.now()}:`;
const adapter = {
  class: 'modules::stream::adapters::KvserverAdapter',
  config: { kvserver_url: REDIS_URL, key_prefix: keyPrefix },
};

let engines: EngineProcess[] = [];
let streams: StreamProcess[] = [];
let writers: SvcClient[] = [];

beforeAll(async () => {
  engines = await Promise.all([startEngine(), startEngine()]);
  streams = await Promise.all(engines.map((e) => startStream(e.url, { adapter })));
  writers = await Promise.all(engines.map((e) => sdkClient(e.url, 'stream-redis-writer')));
});

afterAll(async () => {
  await Promise.all(writers.map((w) => w.shutdown()));
  await Promise.all(streams.map((s) => s.stop()));
  await Promise.all(engines.map((e) => e.stop()));
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${keyPrefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

describe('svc-stream on Redis, two processes', () => {
  it('delivers every change to the clients of both processes exactly once, whichever process wrote it', async () => {
    const [a, b] = [streams[0] as StreamProcess, streams[1] as StreamProcess];
    const [viaA, viaB] = [writers[0] as SvcClient, writers[1] as SvcClient];
    const onA = await rawClient(a.url);
    const onB = await rawClient(b.url);
    onA.join('ga', 'chat', 'room');
    onB.join('gb', 'chat', 'room');
    await waitFor(() => onA.frames.length === 1 && onB.frames.length === 1, 5000, 'sync on both');

    await viaB.trigger({
      function_id: 'stream::set',
      payload: { stream_name: 'chat', group_id: 'room', item_id: 'm1', data: { id: 'm1', text: 'from B' } },
    });
    await viaA.trigger({
      function_id: 'stream::set',
      payload: { stream_name: 'chat', group_id: 'room', item_id: 'm1', data: { id: 'm1', text: 'from A' } },
    });
    await viaB.trigger({
      function_id: 'stream::send',
      payload: { stream_name: 'chat', group_id: 'room', type: 'typing', data: { who: 'b' } },
    });
    await viaA.trigger({
      function_id: 'stream::delete',
      payload: { stream_name: 'chat', group_id: 'room', item_id: 'm1' },
    });

    await waitFor(() => onA.frames.length >= 5 && onB.frames.length >= 5, 5000, 'four changes on both');
    await new Promise((r) => setTimeout(r, 200)); // a duplicate would have arrived by now
    const seen = (frames: typeof onA.frames) => frames.slice(1).map((f) => f.event.type);
    expect(seen(onA.frames)).toEqual(['create', 'update', 'event', 'delete']);
    expect(seen(onB.frames)).toEqual(['create', 'update', 'event', 'delete']);
    expect(onA.frames[2]?.event.data).toEqual({ id: 'm1', text: 'from A' });
    expect(onB.frames.slice(1)).toEqual(onA.frames.slice(1));
    onA.ws.close();
    onB.ws.close();
  });

  it('shares the data: a group written through one engine syncs and lists through the other', async () => {
    const [viaA, viaB] = [writers[0] as SvcClient, writers[1] as SvcClient];
    await viaA.trigger({
      function_id: 'stream::set',
      payload: { stream_name: 'board', group_id: 'g', item_id: 'x', data: { id: 'x' } },
    });
    expect(
      await viaB.trigger({ function_id: 'stream::list', payload: { stream_name: 'board', group_id: 'g' } }),
    ).toEqual([{ id: 'x' }]);
    const onB = await rawClient((streams[1] as StreamProcess).url);
    onB.join('s', 'board', 'g', 'x');
    await waitFor(() => onB.frames.length === 1, 5000, 'item sync');
    expect(onB.frames[0]?.event).toEqual({ type: 'sync', data: { id: 'x' } });
    onB.ws.close();
  });
});
