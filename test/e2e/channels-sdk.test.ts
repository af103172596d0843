/**
 * Our SDK's channel API (`createChannel`, `ChannelWriter`, `ChannelReader`, `readAll`, `openChannel`) against a
 * real engine, with an unmodified iii-sdk@0.22.1 worker on the other end in both directions; a writer that
 * drops mid-stream fails the reader with `channel_closed`; `removeChannel` frees a channel nobody came for.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import WebSocket from 'ws';
import {
  ChannelClosedError,
  ChannelReader,
  ChannelWriter,
  createChannel,
  openChannel,
  registerWorker,
  removeChannel,
  type StreamChannelRef,
  type SvcClient,
} from '@svc/sdk';
import { freePort, spawnWorker, startEngine, waitForFunction, type Child, type EngineProcess } from '../harness.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let engine: EngineProcess;
let iiiPeer: Child;
let ours: SvcClient;

beforeAll(async () => {
  engine = await startEngine();
  iiiPeer = spawnWorker('test/compat/fixtures/iii-channel-worker.mjs', { SVC_URL: engine.url });
  ours = registerWorker(engine.url, { workerName: 'ours-channels', logger: pino({ level: 'silent' }) });
  // an executor on our SDK: it receives a ref in its payload and opens it
  ours.registerFunction('ours::upper', async (payload: { input: StreamChannelRef; output: StreamChannelRef }) => {
    const reader = openChannel(ours, payload.input);
    const writer = openChannel(ours, payload.output) as ChannelWriter;
    const text = (await (reader as { readAll(): Promise<Buffer> }).readAll()).toString().toUpperCase();
    await new Promise<void>((r) => writer.stream.end(Buffer.from(text), () => r()));
    return { length: text.length };
  });
  await Promise.all([ours.ready(), iiiPeer.waitForOutput(/ready/)]);
  await waitForFunction(engine.url, 'chan::consume');
});

afterAll(async () => {
  await ours?.shutdown();
  await Promise.all([iiiPeer?.stop(), engine?.stop()]);
});

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe('our SDK channels', () => {
  it('writes to an iii-sdk reader byte-exact, with a text message first', async () => {
    const ch = await createChannel(ours, { bufferSize: 8 });
    const consumed = ours.trigger({ function_id: 'chan::consume', payload: { reader: ch.readerRef } });
    const data = randomBytes(3 * 1024 * 1024 + 11);
    ch.writer.sendMessage('hi');
    ch.writer.stream.end(data);
    expect(await consumed).toEqual({ bytes: data.length, sha256: sha256(data), messages: ['hi'] });
    expect(await ch.writer.closed).toBe(1000);
  });

  it('reads from an iii-sdk writer byte-exact, text frames to onMessage', async () => {
    const ch = await createChannel(ours);
    const messages: string[] = [];
    ch.reader.onMessage((m) => messages.push(m));
    const produced = ours.trigger<{ sha256: string }>({
      function_id: 'chan::produce',
      payload: { writer: ch.writerRef, size: 2_500_000, seed: 9 },
    });
    const body = await ch.reader.readAll();
    expect(body.length).toBe(2_500_000);
    expect(sha256(body)).toBe((await produced).sha256);
    expect(messages).toHaveLength(1);
  });

  it('hands both ends of two channels to a worker on our SDK', async () => {
    const input = await createChannel(ours);
    const output = await createChannel(ours);
    const call = ours.trigger({
      function_id: 'ours::upper',
      payload: { input: input.readerRef, output: output.writerRef },
    });
    input.writer.stream.end(Buffer.from('stream me'));
    expect((await output.reader.readAll()).toString()).toBe('STREAM ME');
    expect(await call).toEqual({ length: 9 });
  });

  it('fails the reader with channel_closed when the writer drops mid-stream', async () => {
    const ch = await createChannel(ours);
    const reading = ch.reader.readAll().catch((e: unknown) => e);
    await new Promise<void>((r) => ch.writer.stream.write(Buffer.from('partial'), () => r()));
    ch.writer.stream.destroy();
    const err = await reading;
    expect(err).toBeInstanceOf(ChannelClosedError);
    expect(err).toMatchObject({ code: 'channel_closed', closeCode: 1011 });
  });

  it('fails a write made while the channel is closing through its callback, without an error event', async () => {
    const ch = await createChannel(ours);
    const reading = ch.reader.readAll();
    await new Promise<void>((r) => ch.writer.stream.write(Buffer.from('first'), () => r()));
    const errors: unknown[] = [];
    ch.writer.stream.on('error', (e) => errors.push(e));
    ch.writer.close(); // the socket is closing; its `close` event comes later
    const failed = await new Promise<Error | null | undefined>((r) => ch.writer.stream.write(Buffer.from('late'), r));
    expect(failed?.message).toMatch(/closed|destroyed/);
    expect((await reading).toString()).toBe('first');
    expect(await ch.writer.closed).toBe(1000);
    expect(errors).toEqual([]);
  });

  it('ends a handler writing until its reader leaves, with no error event on the stream', async () => {
    for (let round = 0; round < 5; round++) {
      const ch = await createChannel(ours);
      // no 'error' listener, as in a handler that streams to a client until it goes away: an 'error' event would
      // be an uncaught exception here and fail the run
      let writes = 0;
      const writing = new Promise<void>((resolve) => {
        const next = (): void => {
          if (ch.writer.stream.destroyed) return resolve();
          writes += 1;
          ch.writer.stream.write(Buffer.alloc(64, 0x61), () => undefined);
          setImmediate(next);
        };
        next();
      });
      ch.reader.stream.once('data', () => ch.reader.close());
      await writing;
      expect(writes).toBeGreaterThan(1);
      expect(await ch.writer.closed).toBeGreaterThanOrEqual(1000);
    }
  });

  it('fails the writes of a writer whose channel was already gone, without an error event', async () => {
    const ch = await createChannel(ours);
    expect(await removeChannel(ours, ch.readerRef)).toBe(true);
    const writer = new ChannelWriter(engine.url, ch.writerRef);
    const errors: unknown[] = [];
    writer.stream.on('error', (e) => errors.push(e));
    const failed = await new Promise<Error | null | undefined>((r) => writer.stream.write(Buffer.from('x'), r));
    expect(failed?.message).toBe('channel is gone: its reader left, or it was removed');
    expect(await writer.closed).toBe(1006);
    expect(writer.stream.destroyed).toBe(true);
    expect(errors).toEqual([]);
  });

  it('fails a reader of a removed channel with an error that names the refusal', async () => {
    const ch = await createChannel(ours);
    expect(await removeChannel(ours, ch.readerRef)).toBe(true);
    const reader = openChannel(ours, ch.readerRef) as ChannelReader;
    await expect(reader.readAll()).rejects.toThrow(
      'channel refused: HTTP 404 (no such channel: wrong key, or removed, expired or retired)',
    );
  });

  it('still reports a socket that cannot connect as an error event', async () => {
    const port = await freePort();
    const writer = new ChannelWriter(`ws://127.0.0.1:${port}`, {
      channel_id: 'c',
      access_key: 'k',
      direction: 'write',
    });
    const error = new Promise<Error>((r) => writer.stream.once('error', r));
    writer.stream.write(Buffer.from('x'), () => undefined);
    expect(await error).toMatchObject({ code: 'ECONNREFUSED' });
    expect(await writer.closed).toBe(1006);
  });

  it('holds back a raw writer with no reader at about 8 MiB, then relays all of it once a reader comes', async () => {
    const ch = await createChannel(ours, 1024); // 1,024 frames: before, the engine held all of them
    const url = new URL(engine.url);
    const key = encodeURIComponent(ch.writerRef.access_key);
    const raw = new WebSocket(`ws://${url.host}/ws/channels/${ch.writerRef.channel_id}?key=${key}&dir=write`);
    await new Promise((resolve, reject) => raw.once('open', resolve).once('error', reject));
    const frame = randomBytes(1024 * 1024);
    for (let i = 0; i < 64; i++) raw.send(frame);
    await new Promise((r) => setTimeout(r, 1000));
    // The engine stopped reading: most of the 64 MiB still waits in the writer (the rest in TCP buffers).
    expect(raw.bufferedAmount).toBeGreaterThan(32 * 1024 * 1024);
    const reader = openChannel(ours, ch.readerRef) as ChannelReader;
    const all = reader.readAll();
    await new Promise<void>((resolve) => raw.send(Buffer.alloc(0), () => resolve()));
    raw.close(1000, 'stream_complete');
    const got = await all;
    expect(got.length).toBe(64 * 1024 * 1024);
    expect(sha256(got.subarray(0, frame.length))).toBe(sha256(frame));
  });

  it('removes a channel with its key, and not twice', async () => {
    const ch = await createChannel(ours);
    expect(await removeChannel(ours, ch.readerRef)).toBe(true);
    expect(await removeChannel(ours, ch.readerRef)).toBe(false);
  });
});
