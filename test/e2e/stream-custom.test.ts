/**
 * Custom stream implementations (workers/stream/README.md, "Functions"): a worker using iii-sdk@0.22.1 `createStream`
 * registers `stream::<op>(<stream>)`; svc-stream then calls it instead of its adapter for that stream, for the
 * functions and for the sync, and still pushes the change events to clients. Other streams keep using the adapter.
 */
import { registerWorker, type IIIClient } from 'iii-sdk';
import { createStream } from 'iii-sdk/helpers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, waitFor, type EngineProcess } from '../harness.js';
import { rawClient, sdkClient, startStream, type StreamProcess } from './stream-helpers.js';
import type { SvcClient } from '@svc/sdk';

interface Key {
  group_id: string;
  item_id: string;
}

let engine: EngineProcess;
let stream: StreamProcess;
let impl: IIIClient;
let caller: SvcClient;
const rows = new Map<string, unknown>();
const calls: string[] = [];

beforeAll(async () => {
  engine = await startEngine();
  stream = await startStream(engine.url);
  impl = registerWorker(engine.url, { otel: { enabled: false }, workerName: 'custom-stream' });
  const k = (i: Key) => `${i.group_id}/${i.item_id}`;
  createStream(impl, 'books', {
    get: async (i) => (calls.push('get'), (rows.get(k(i)) as never) ?? null),
    set: async (i) => {
      calls.push('set');
      const old = rows.get(k(i)) ?? null;
      rows.set(k(i), i.data);
      return { old_value: old, new_value: i.data } as never;
    },
    delete: async (i) => {
      calls.push('delete');
      const old = rows.get(k(i)) ?? null;
      rows.delete(k(i));
      return { old_value: old };
    },
    list: async (i) => (
      calls.push('list'),
      [...rows.entries()].filter(([key]) => key.startsWith(`${i.group_id}/`)).map(([, v]) => v) as never
    ),
    listGroups: async () => (
      calls.push('list_groups'),
      [...new Set([...rows.keys()].map((key) => key.split('/')[0]))] as never
    ),
    update: async () => null,
  });
  caller = await sdkClient(engine.url);
  await waitFor(
    async () => {
      await caller.trigger({ function_id: 'stream::list_groups', payload: { stream_name: 'books' } });
      return calls.includes('list_groups');
    },
    10_000,
    'svc-stream to see the custom implementation',
  );
});

afterAll(async () => {
  await caller?.shutdown();
  await impl?.shutdown();
  await stream?.stop();
  await engine?.stop();
});

describe('custom stream implementations', () => {
  it('routes reads, writes and the sync to the custom functions, and still pushes changes to clients', async () => {
    await caller.trigger({
      function_id: 'stream::set',
      payload: { stream_name: 'books', group_id: 'shelf', item_id: 'b1', data: { id: 'b1', t: 'Dune' } },
    });
    expect(rows.get('shelf/b1')).toEqual({ id: 'b1', t: 'Dune' });
    expect(
      await caller.trigger({
        function_id: 'stream::get',
        payload: { stream_name: 'books', group_id: 'shelf', item_id: 'b1' },
      }),
    ).toEqual({ id: 'b1', t: 'Dune' });

    const client = await rawClient(stream.url);
    client.join('s', 'books', 'shelf');
    await waitFor(() => client.frames.length === 1, 5000, 'sync');
    expect(client.frames[0]?.event).toEqual({ type: 'sync', data: [{ id: 'b1', t: 'Dune' }] });
    expect(calls).toContain('list');

    const updated = await caller.trigger({
      function_id: 'stream::set',
      payload: { stream_name: 'books', group_id: 'shelf', item_id: 'b1', data: { id: 'b1', t: 'Dune II' } },
    });
    expect(updated).toEqual({ old_value: { id: 'b1', t: 'Dune' }, new_value: { id: 'b1', t: 'Dune II' } });
    await caller.trigger({
      function_id: 'stream::delete',
      payload: { stream_name: 'books', group_id: 'shelf', item_id: 'b1' },
    });
    await waitFor(() => client.frames.length === 3, 5000, 'update and delete frames');
    expect(client.frames.slice(1).map((f) => f.event)).toEqual([
      { type: 'update', data: { id: 'b1', t: 'Dune II' } },
      { type: 'delete', data: { id: 'b1', t: 'Dune II' } },
    ]);
    expect(rows.size).toBe(0);
    client.ws.close();
  });

  it('keeps other streams on the adapter', async () => {
    const before = calls.length;
    await caller.trigger({
      function_id: 'stream::set',
      payload: { stream_name: 'plain', group_id: 'g', item_id: 'x', data: { id: 'x' } },
    });
    expect(
      await caller.trigger({ function_id: 'stream::list', payload: { stream_name: 'plain', group_id: 'g' } }),
    ).toEqual([{ id: 'x' }]);
    expect(calls.length).toBe(before);
  });
});
