/**
 * svc-stream end to end: a real engine, svc-stream as its own process, a worker using the SDK, and the real client
 * `@motiadev/stream-client-node` subscribing over the client socket (docs/protocol.md, "6. The stream client socket").
 */
import { Stream } from '@motiadev/stream-client-node';
import type { SvcClient } from '@svc/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, waitFor, type EngineProcess } from '../harness.js';
import { rawClient, sdkClient, startStream, type Frame, type StreamProcess } from './stream-helpers.js';

interface Todo {
  id: string;
  title: string;
  done?: boolean;
  n?: number;
}

let engine: EngineProcess;
let stream: StreamProcess;
let worker: SvcClient;
const joins: unknown[] = [];
const leaves: unknown[] = [];
const changes: Frame[] = [];

beforeAll(async () => {
  engine = await startEngine();
  stream = await startStream(engine.url);
  worker = await sdkClient(engine.url);
  worker.registerFunction('test::on_join', async (event: { stream_name: string }) => {
    joins.push(event);
    return event.stream_name === 'secret' ? { unauthorized: true } : { unauthorized: false };
  });
  worker.registerFunction('test::deny_all', async () => ({ unauthorized: true }));
  worker.registerFunction('test::on_leave', async (event: unknown) => void leaves.push(event));
  worker.registerFunction('test::on_change', async (frame: Frame) => void changes.push(frame));
  // on_join's binding goes last: bindings reach svc-stream in order, so once the probe below is refused by on_join,
  // every binding before it is live too.
  worker.registerTrigger({ type: 'stream:join', function_id: 'test::deny_all', config: { stream_name: 'locked' } });
  worker.registerTrigger({ type: 'stream:leave', function_id: 'test::on_leave', config: {} });
  worker.registerTrigger({ type: 'stream', function_id: 'test::on_change', config: { stream_name: 'todo' } });
  worker.registerFunction('test::only_a', async (frame: Frame) => frame.id === 'a');
  worker.registerTrigger({
    type: 'stream',
    function_id: 'test::on_change',
    config: { stream_name: 'cond', group_id: 'g', condition_function_id: 'test::only_a' },
  });
  worker.registerTrigger({ type: 'stream:join', function_id: 'test::on_join', config: {} });
  await waitFor(async () => {
    const probe = await rawClient(stream.url);
    probe.join('probe', 'secret', 'g');
    await waitFor(() => probe.frames.length > 0, 2000);
    probe.ws.close();
    return probe.frames[0]?.event.type === 'unauthorized';
  }, 10_000);
});

afterAll(async () => {
  await worker?.shutdown();
  await stream?.stop();
  await engine?.stop();
});

const call = <T = unknown>(function_id: string, payload: unknown) => worker.trigger<T>({ function_id, payload });

describe('svc-stream with the real stream client', () => {
  it('syncs, then follows create, update, delete and custom events on group and item subscriptions', async () => {
    await call('stream::set', {
      stream_name: 'todo',
      group_id: 'inbox',
      item_id: 'a',
      data: { id: 'a', title: 'milk' },
    });
    const client = new Stream(stream.url);
    try {
      const group = client.subscribeGroup<Todo>('todo', 'inbox');
      const item = client.subscribeItem<Todo>('todo', 'inbox', 'a');
      const events: unknown[] = [];
      group.onEvent('typing', (data) => events.push(data));
      await waitFor(() => group.getState()?.length === 1 && item.getState()?.id === 'a', 5000, 'sync');
      expect(group.getState()).toEqual([{ id: 'a', title: 'milk' }]);

      await call('stream::set', {
        stream_name: 'todo',
        group_id: 'inbox',
        item_id: 'b',
        data: { id: 'b', title: 'call' },
      });
      await waitFor(() => group.getState().length === 2, 5000, 'create');

      const updated = await call<{ old_value: Todo; new_value: Todo }>('stream::update', {
        stream_name: 'todo',
        group_id: 'inbox',
        item_id: 'a',
        ops: [
          { type: 'set', path: 'done', value: true },
          { type: 'increment', path: 'n', by: 3 },
        ],
      });
      expect(updated).toEqual({
        old_value: { id: 'a', title: 'milk' },
        new_value: { id: 'a', title: 'milk', done: true, n: 3 },
      });
      await waitFor(() => item.getState()?.done === true, 5000, 'update on the item subscription');
      await waitFor(() => group.getState().find((t) => t.id === 'a')?.n === 3, 5000, 'update on the group');

      await call('stream::send', { stream_name: 'todo', group_id: 'inbox', type: 'typing', data: { who: 'al' } });
      await waitFor(() => events.length === 1, 5000, 'custom event');
      expect(events[0]).toEqual({ who: 'al' });

      const removed = await call<{ old_value: Todo }>('stream::delete', {
        stream_name: 'todo',
        group_id: 'inbox',
        item_id: 'a',
      });
      expect(removed.old_value).toMatchObject({ id: 'a', done: true });
      await waitFor(() => item.getState() === null && group.getState().length === 1, 5000, 'delete');
      expect(group.getState()).toEqual([{ id: 'b', title: 'call' }]);
    } finally {
      client.close();
    }
  });

  it('gives back-to-back changes of one item distinct timestamps, so the item client keeps every one', async () => {
    const client = new Stream(stream.url);
    try {
      const item = client.subscribeItem<Todo>('todo', 'fast', 'f');
      await waitFor(() => item.getState() === null, 5000, 'sync');
      await Promise.all(
        Array.from({ length: 20 }, (_, n) =>
          call('stream::set', {
            stream_name: 'todo',
            group_id: 'fast',
            item_id: 'f',
            data: { id: 'f', title: 't', n },
          }),
        ),
      );
      const last = await call<Todo>('stream::get', { stream_name: 'todo', group_id: 'fast', item_id: 'f' });
      await waitFor(() => item.getState()?.n === last.n, 5000, 'the last write on the item subscription');
    } finally {
      client.close();
    }
  });

  it('answers the read functions with the documented shapes', async () => {
    await call('stream::set', { stream_name: 'shapes', group_id: 'g1', item_id: 'x', data: { id: 'x' } });
    await call('stream::set', { stream_name: 'shapes', group_id: 'g2', item_id: 'y', data: { id: 'y' } });
    expect(await call('stream::get', { stream_name: 'shapes', group_id: 'g1', item_id: 'x' })).toEqual({ id: 'x' });
    expect(await call('stream::get', { stream_name: 'shapes', group_id: 'g1', item_id: 'nope' })).toBeUndefined();
    expect(await call('stream::list', { stream_name: 'shapes', group_id: 'g2' })).toEqual([{ id: 'y' }]);
    expect(await call('stream::list_groups', { stream_name: 'shapes' })).toEqual(['g1', 'g2']);
    const all = await call<{ stream: Array<{ id: string; groups: string[] }>; count: number }>('stream::list_all', {});
    expect(all.stream).toContainEqual({ id: 'shapes', groups: ['g1', 'g2'] });
    expect(all.count).toBe(all.stream.length);
    expect(await call('stream::delete', { stream_name: 'shapes', group_id: 'g1', item_id: 'nope' })).toEqual({
      old_value: null,
    });
    await expect(call('stream::set', { stream_name: 'shapes', group_id: 'g1' })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/item_id/),
    });
  });

  it('fires stream triggers with the wrapper frame (filtered by group and condition), and join/leave handlers', async () => {
    changes.length = 0;
    await call('stream::set', { stream_name: 'todo', group_id: 'trig', item_id: 't', data: { id: 't' } });
    await call('stream::set', { stream_name: 'other', group_id: 'trig', item_id: 't', data: { id: 't' } });
    await waitFor(() => changes.length >= 1, 5000, 'stream trigger');
    await new Promise((r) => setTimeout(r, 100));
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      type: 'stream',
      streamName: 'todo',
      groupId: 'trig',
      id: 't',
      event: { type: 'create', data: { id: 't' } },
    });

    changes.length = 0;
    for (const [group, id] of [
      ['g', 'a'],
      ['g', 'b'],
      ['other', 'a'],
    ]) {
      await call('stream::set', { stream_name: 'cond', group_id: group, item_id: id, data: { id } });
    }
    await waitFor(() => changes.length >= 1, 5000, 'conditional stream trigger');
    await new Promise((r) => setTimeout(r, 100));
    expect(changes.map((c) => `${c.groupId}/${c.id}`)).toEqual(['g/a']);

    const raw = await rawClient(stream.url);
    raw.join('sub-1', 'todo', 'trig');
    await waitFor(() => raw.frames.length === 1, 5000, 'sync');
    expect(joins).toContainEqual(
      expect.objectContaining({
        subscription_id: 'sub-1',
        stream_name: 'todo',
        group_id: 'trig',
        id: null,
        context: null,
      }),
    );
    raw.ws.close();
    await waitFor(
      () => leaves.some((l) => (l as { subscription_id: string }).subscription_id === 'sub-1'),
      5000,
      'leave',
    );
  });

  it('tells a client its join was refused, and records no subscription', async () => {
    const raw = await rawClient(stream.url);
    raw.join('s', 'secret', 'vault');
    await waitFor(() => raw.frames.length === 1, 5000);
    expect(raw.frames[0]).toMatchObject({
      type: 'stream',
      streamName: 'secret',
      groupId: 'vault',
      id: null,
      event: { type: 'unauthorized' },
    });
    await call('stream::set', { stream_name: 'secret', group_id: 'vault', item_id: 'k', data: { id: 'k' } });
    await new Promise((r) => setTimeout(r, 100));
    expect(raw.frames).toHaveLength(1);
    raw.ws.close();
  });

  it('runs a join binding with config.stream_name only for that stream', async () => {
    const raw = await rawClient(stream.url);
    raw.join('l', 'locked', 'g');
    await waitFor(() => raw.frames.length === 1, 5000);
    expect(raw.frames[0]?.event.type).toBe('unauthorized');
    raw.join('o', 'open', 'g');
    await waitFor(() => raw.frames.length === 2, 5000);
    expect(raw.frames[1]?.event).toEqual({ type: 'sync', data: [] });
    raw.ws.close();
  });
});
