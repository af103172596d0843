/**
 * The client socket limits on the real svc-stream process: oversize frame → 1009, a client that stops reading is
 * disconnected while others keep receiving, a client that stops answering pings is dropped, a flood is closed with
 * 1008; the process stays up through all of it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SvcClient } from '@svc/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startEngine, waitFor, type EngineProcess } from '../harness.js';
import { rawClient, sdkClient, startStream, type StreamProcess } from './stream-helpers.js';

let engine: EngineProcess;
let stream: StreamProcess;
let writer: SvcClient;

beforeAll(async () => {
  engine = await startEngine();
  stream = await startStream(engine.url, {
    max_message_bytes: 1024,
    max_buffered_bytes: 256 * 1024,
    ping_interval_ms: 300,
    max_missed_pongs: 2,
    max_messages_per_second: 50,
  });
  writer = await sdkClient(engine.url);
});

afterAll(async () => {
  await writer?.shutdown();
  await stream?.stop();
  await engine?.stop();
});

function closed(ws: WebSocket): Promise<number> {
  return new Promise((resolve) => ws.once('close', (code) => resolve(code)));
}

const set = (group: string, item: string, data: unknown) =>
  writer.trigger({ function_id: 'stream::set', payload: { stream_name: 'lim', group_id: group, item_id: item, data } });

describe('svc-stream client limits, on the real process', () => {
  it('closes an oversize frame with 1009 and keeps serving', async () => {
    const big = await rawClient(stream.url);
    big.ws.send('x'.repeat(1025));
    expect(await closed(big.ws)).toBe(1009);
    const next = await rawClient(stream.url);
    next.join('s', 'lim', 'after-oversize');
    await waitFor(() => next.frames.length === 1, 5000, 'a sync after the oversize frame');
    next.ws.close();
  });

  it('disconnects a client that stops reading, while a reading client gets every change', async () => {
    const reader = await rawClient(stream.url);
    const stalled = await rawClient(stream.url);
    reader.join('r', 'lim', 'big');
    stalled.join('s', 'lim', 'big');
    await waitFor(() => reader.frames.length === 1 && stalled.frames.length === 1, 5000, 'syncs');
    const stalledClosed = closed(stalled.ws);
    stalled.ws.pause();
    const payload = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 160; i++) await set('big', `i${i % 4}`, { id: `i${i % 4}`, payload }); // 10 MiB
    await waitFor(() => reader.frames.length === 161, 20_000, 'every change on the reading client');
    stalled.ws.resume();
    expect([1013, 1006]).toContain(await stalledClosed);
    reader.ws.close();
  });

  it('syncs a group larger than max_buffered_bytes to a client that reads, and still drops one that stops', async () => {
    const payload = 'y'.repeat(100 * 1024);
    for (let i = 0; i < 5; i++) await set('large', `l${i}`, { payload }); // ~500 KiB, twice the cap
    const reader = await rawClient(stream.url);
    const readerClosed = closed(reader.ws).then((code) => `closed ${code}`);
    reader.join('r', 'lim', 'large');
    // Before, the sync frame alone was over the cap: every subscriber was dropped with 1013 at its join.
    await waitFor(() => reader.frames.length === 1, 5000, 'the sync of the large group');
    await set('large', 'l0', { payload: 'small' });
    await waitFor(() => reader.frames.length === 2, 5000, 'the change after the sync');
    expect(await Promise.race([readerClosed, new Promise((r) => setTimeout(() => r('open'), 200))])).toBe('open');
    const stalled = await rawClient(stream.url);
    const stalledClosed = closed(stalled.ws);
    stalled.join('s', 'lim', 'large');
    await waitFor(() => stalled.frames.length === 1, 5000, 'the stalled client’s sync');
    stalled.ws.pause();
    for (let i = 0; i < 100; i++) await set('large', `l${i % 5}`, { payload }); // 10 MiB it never reads
    stalled.ws.resume();
    expect([1013, 1006]).toContain(await stalledClosed);
    reader.ws.close();
  });

  it('drops a client that stops answering pings', async () => {
    const dead = new WebSocket(stream.url, { autoPong: false });
    dead.on('error', () => undefined);
    await new Promise((resolve) => dead.once('open', resolve));
    await closed(dead); // ping every 300 ms, 2 missed
  });

  it('closes a client that floods messages with 1008', async () => {
    const flooder = await rawClient(stream.url);
    for (let i = 0; i < 200; i++) flooder.ws.send('{}');
    expect(await closed(flooder.ws)).toBe(1008);
    expect(stream.exited).toBe(false);
  });
});

describe('svc-stream store size (max_store_bytes), on the real process', () => {
  it('refuses a write past max_store_bytes with stream_store_full, keeps what it holds, and takes writes again after deletes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-stream-store-full-'));
    const adapter = {
      class: 'modules::stream::adapters::KvStore',
      config: { store_method: 'file_based', file_path: dir, save_interval_ms: 0, max_store_bytes: 64 * 1024 },
    };
    // its own engine: on the shared one, the unbounded svc-stream above would take some of the calls
    const own = await startEngine();
    const caller = await sdkClient(own.url);
    let bounded = await startStream(own.url, { adapter });
    try {
      const put = (item: string) =>
        caller.trigger({
          function_id: 'stream::set',
          payload: { stream_name: 'full', group_id: 'g', item_id: item, data: { text: 'x'.repeat(10 * 1024) } },
        });
      for (let i = 0; i < 6; i++) await put(`i${i}`);
      // Before, every write was taken: 500 items of 8 MiB ran svc-stream out of heap, and it loaded them again on restart.
      await expect(put('i6')).rejects.toMatchObject({
        code: 'stream_store_full',
        message: expect.stringMatching(/past max_store_bytes \(0\.1 MiB\): delete items/),
      });
      const list = () =>
        caller.trigger<unknown[]>({ function_id: 'stream::list', payload: { stream_name: 'full', group_id: 'g' } });
      expect(await list()).toHaveLength(6);
      await caller.trigger({
        function_id: 'stream::delete',
        payload: { stream_name: 'full', group_id: 'g', item_id: 'i0' },
      });
      await put('i6');
      // after a restart the items it loads count too
      await bounded.stop();
      bounded = await startStream(own.url, { adapter });
      expect(await list()).toHaveLength(6);
      await expect(put('i7')).rejects.toMatchObject({ code: 'stream_store_full' });
    } finally {
      await bounded.stop();
      await caller.shutdown();
      await own.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
