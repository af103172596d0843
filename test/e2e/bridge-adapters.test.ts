/**
 * Bridge adapters end to end: engine L runs svc-queue and svc-stream (supervised, from its config) with the
 * `Bridge` adapter pointing at engine R, whose svc-queue and svc-stream serve the data. A worker on L uses queues and
 * streams as if they were local: enqueued jobs run on L (lost = 0) while R holds the queue and its dead letters;
 * stream clients on either engine see the changes made through the other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TriggerAction, type SvcClient } from '@svc/sdk';
import { freePort, startEngine, waitFor, waitForFunction, type Child, type EngineProcess } from '../harness.js';
import { builtinMemory, client, spawnQueue } from './queue-support.js';
import { rawClient, sdkClient, startStream, type StreamProcess } from './stream-helpers.js';

let remote: EngineProcess;
let local: EngineProcess;
let remoteQueue: Child;
let remoteStream: StreamProcess;
let localStreamPort: number;
let onLocal: SvcClient;
let onRemote: SvcClient;

beforeAll(async () => {
  remote = await startEngine();
  remoteQueue = spawnQueue(remote.url, { adapter: builtinMemory({ max_attempts: 2, backoff_ms: 100 }) });
  // Generous: start-up is slow on a loaded machine.
  [, remoteStream] = await Promise.all([remoteQueue.waitForOutput('svc-queue ready', 60_000), startStream(remote.url)]);
  localStreamPort = await freePort();
  const bridge = { config: { bridge_url: remote.url } };
  local = await startEngine({
    modules: [
      {
        class: 'modules::queue::QueueModule',
        config: { adapter: { class: 'modules::queue::adapters::Bridge', ...bridge } },
      },
      {
        class: 'modules::stream::StreamModule',
        config: {
          port: localStreamPort,
          host: '127.0.0.1',
          adapter: { class: 'modules::stream::adapters::Bridge', ...bridge },
        },
      },
    ],
  });
  await Promise.all([
    waitForFunction(local.url, 'engine::queue::enqueue', 60_000),
    waitForFunction(local.url, 'stream::set', 60_000),
  ]);
  onLocal = client(local.url, 'bridge-adapters-local');
  await onLocal.ready();
  onRemote = await sdkClient(remote.url, 'bridge-adapters-remote');
}, 180_000);

afterAll(async () => {
  await Promise.all([onLocal?.shutdown(), onRemote?.shutdown()]);
  await local?.stop();
  await Promise.all([remoteQueue?.stop(), remoteStream?.stop()]);
  await remote?.stop();
});

describe('queue Bridge adapter', () => {
  it('runs every enqueued job on the bridging engine while the remote holds the queue', async () => {
    const ran: number[] = [];
    onLocal.registerFunction('bridged::work', (p: { n: number }) => void ran.push(p.n));
    const acked = await Promise.all(
      Array.from({ length: 50 }, (_, n) =>
        onLocal.trigger({
          function_id: 'bridged::work',
          payload: { n },
          action: TriggerAction.Enqueue({ queue: 'bridged-orders' }),
        }),
      ),
    );
    expect(acked).toHaveLength(50);
    await waitFor(() => ran.length >= 50, 15_000, '50 bridged jobs');
    expect([...new Set(ran)].sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, n) => n));
    expect(ran).toHaveLength(50);
    // The queue lives on the remote engine.
    const stats = await onRemote.trigger<{ queue: string }>({
      function_id: 'queue::topic_stats',
      payload: { queue: 'bridged-orders' },
    });
    expect(stats).toMatchObject({ queue: 'bridged-orders', waiting: 0, dead: 0 });
  });

  it('a failing job ends in the remote dead letters, listed from the bridging engine with its own function', async () => {
    onLocal.registerFunction('bridged::fail', () => {
      throw new Error('refused by the bridged handler');
    });
    await onLocal.trigger({
      function_id: 'queue::enqueue',
      payload: { queue: 'bridged-dlq', function_id: 'bridged::fail', data: { order: 9 }, id: 'order-9' },
    });
    const page = await waitFor(async () => {
      const p = await onLocal.trigger<{ total: number; messages: { id: string; function_id: string }[] }>({
        function_id: 'queue::dlq_messages',
        payload: { queue: 'bridged-dlq' },
      });
      return p.total === 1 ? p : undefined;
    }, 15_000);
    expect(page?.messages[0]).toMatchObject({
      id: 'order-9',
      function_id: 'bridged::fail',
      data: { order: 9 },
      attempts: 2,
      error: { message: 'refused by the bridged handler' },
    });
  });
});

describe('stream Bridge adapter', () => {
  it("a client on the bridging engine sees the remote's changes, and the other way round", async () => {
    const here = await rawClient(`ws://127.0.0.1:${localStreamPort}/`);
    const there = await rawClient(remoteStream.url);
    try {
      here.join('s-here', 'chat', 'room');
      there.join('s-there', 'chat', 'room');
      await waitFor(() => here.frames.length >= 1 && there.frames.length >= 1, 10_000, 'both syncs');
      await onRemote.trigger({
        function_id: 'stream::set',
        payload: { stream_name: 'chat', group_id: 'room', item_id: 'm1', data: { text: 'from R' } },
      });
      await onLocal.trigger({
        function_id: 'stream::set',
        payload: { stream_name: 'chat', group_id: 'room', item_id: 'm2', data: { text: 'from L' } },
      });
      const creates = (frames: typeof here.frames) =>
        frames.filter((f) => f.event.type === 'create').map((f) => [f.id, f.event.data]);
      const expected = [
        ['m1', { text: 'from R' }],
        ['m2', { text: 'from L' }],
      ];
      await waitFor(() => creates(here.frames).length >= 2 && creates(there.frames).length >= 2, 10_000, 'creates');
      expect(creates(here.frames)).toEqual(expected);
      expect(creates(there.frames)).toEqual(expected);
      expect(
        await onLocal.trigger({ function_id: 'stream::list', payload: { stream_name: 'chat', group_id: 'room' } }),
      ).toEqual([{ text: 'from R' }, { text: 'from L' }]);
    } finally {
      here.ws.close();
      there.ws.close();
    }
  });
});
