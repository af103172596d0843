/**
 * Data channels with the unmodified iii-sdk@0.22.1 on both sides (docs/channels.md): `createChannel`, `ChannelWriter`,
 * `ChannelReader` and `readAll` between two worker processes in both directions, byte-exact; text and binary frames;
 * unknown channel or key → 404; each end taken once; a slow (absent) reader holds the writer back; a channel owned by a
 * worker goes with the worker.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { registerWorker, type IIIClient } from 'iii-sdk';
import { createChannel } from 'iii-sdk/helpers';
import { spawnWorker, startEngine, waitFor, waitForFunction, type Child, type EngineProcess } from '../harness.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let engine: EngineProcess;
let peer: Child;
let iii: IIIClient;

beforeAll(async () => {
  engine = await startEngine();
  peer = spawnWorker('test/compat/fixtures/iii-channel-worker.mjs', { SVC_URL: engine.url });
  await peer.waitForOutput(/ready/);
  await waitForFunction(engine.url, 'chan::consume');
  iii = registerWorker(engine.url, { otel: { enabled: false }, workerName: 'channels-test' });
});

afterAll(async () => {
  await iii?.shutdown();
  await Promise.all([peer?.stop(), engine?.stop()]);
});

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** Opens a raw socket on a channel URL; resolves how the engine answered. */
function rawOpen(url: string): Promise<{ status?: number; closeCode?: number; opened: boolean }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    let opened = false;
    ws.on('open', () => (opened = true));
    ws.on('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode, opened });
      ws.terminate();
    });
    ws.on('close', (code) => resolve({ closeCode: code, opened }));
    ws.on('error', () => undefined);
  });
}

function channelUrl(id: string, key: string, dir: string): string {
  return `${engine.url}/ws/channels/${id}?key=${encodeURIComponent(key)}&dir=${dir}`;
}

describe('iii-sdk channels between two workers', () => {
  it('streams this worker → the other worker byte-exact, text messages included', async () => {
    const ch = await createChannel(iii);
    const consumed = iii.trigger({ function_id: 'chan::consume', payload: { reader: ch.readerRef } });
    const data = randomBytes(5 * 1024 * 1024 + 123);
    ch.writer.sendMessage('{"type":"hello"}');
    for (let at = 0; at < data.length; at += 300_000) {
      if (!ch.writer.stream.write(data.subarray(at, at + 300_000))) {
        await new Promise((r) => ch.writer.stream.once('drain', r));
      }
    }
    ch.writer.stream.end();
    const result = (await consumed) as { bytes: number; sha256: string; messages: string[] };
    expect(result).toEqual({ bytes: data.length, sha256: sha256(data), messages: ['{"type":"hello"}'] });
  });

  it('streams the other worker → this worker byte-exact, with readAll and onMessage', async () => {
    const ch = await createChannel(iii, 16);
    const messages: string[] = [];
    ch.reader.onMessage((m) => messages.push(m));
    const produced = iii.trigger({
      function_id: 'chan::produce',
      payload: { writer: ch.writerRef, size: 4 * 1024 * 1024 + 7, seed: 3 },
    }) as Promise<{ sha256: string }>;
    const body = await ch.reader.readAll();
    expect(body.length).toBe(4 * 1024 * 1024 + 7);
    expect(sha256(body)).toBe((await produced).sha256);
    expect(messages).toEqual([JSON.stringify({ type: 'meta', size: 4 * 1024 * 1024 + 7 })]);
  });

  it('returns refs of one channel with different directions', async () => {
    const refs = (await iii.trigger({ function_id: 'engine::channels::create', payload: {} })) as {
      writer: { channel_id: string; access_key: string; direction: string };
      reader: { channel_id: string; access_key: string; direction: string };
    };
    expect(refs.writer.direction).toBe('write');
    expect(refs.reader.direction).toBe('read');
    expect(refs.reader.channel_id).toBe(refs.writer.channel_id);
    expect(refs.reader.access_key).toBe(refs.writer.access_key);
  });

  it('refuses bad input with deserialization_error', async () => {
    const err = await iii
      .trigger({ function_id: 'engine::channels::create', payload: { buffer_size: 'big' } })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'deserialization_error' });
    expect((err as Error).message).toContain('buffer_size');
  });
});

describe('the channel endpoint', () => {
  it('answers 404 for an unknown channel or a wrong key, 400 for a bad dir', async () => {
    const ch = await createChannel(iii);
    const { channel_id: id, access_key: key } = ch.readerRef;
    expect((await rawOpen(channelUrl('00000000-0000-4000-8000-000000000000', key, 'read'))).status).toBe(404);
    expect((await rawOpen(channelUrl(id, key + 'x', 'read'))).status).toBe(404);
    expect((await rawOpen(channelUrl(id, key, 'sideways'))).status).toBe(400);
  });

  it('gives each end once: a second connection to the same end is closed at once', async () => {
    const ch = await createChannel(iii);
    const url = channelUrl(ch.readerRef.channel_id, ch.readerRef.access_key, 'read');
    const first = new WebSocket(url);
    await new Promise((r) => first.once('open', r));
    const second = await rawOpen(url);
    expect(second.opened).toBe(true);
    expect(second.closeCode).toBe(1008);
    expect(first.readyState).toBe(WebSocket.OPEN);
    first.close();
  });

  it('closes the reader when the writer closes, after the frames it sent', async () => {
    const ch = await createChannel(iii);
    const reader = new WebSocket(channelUrl(ch.readerRef.channel_id, ch.readerRef.access_key, 'read'));
    const got: string[] = [];
    reader.on('message', (d: Buffer, binary: boolean) => got.push(`${binary ? 'bin' : 'text'}:${d.toString()}`));
    const closed = new Promise<number>((r) => reader.once('close', (code) => r(code)));
    ch.writer.sendMessage('one');
    ch.writer.stream.write(Buffer.from('two'));
    ch.writer.stream.end();
    expect(await closed).toBe(1000);
    expect(got).toEqual(['text:one', 'bin:two']);
  });

  it('holds the writer back while nobody reads, then delivers everything', async () => {
    const ch = await createChannel(iii, 4);
    const total = 48 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 7);
    let written = 0;
    const writing = (async () => {
      while (written < total) {
        const ok = ch.writer.stream.write(chunk);
        written += chunk.length;
        if (!ok) await new Promise((r) => ch.writer.stream.once('drain', r));
      }
      ch.writer.stream.end();
    })();
    // With no reader the engine holds 4 frames; the rest waits in socket buffers, so the writer stalls.
    let last = -1;
    await waitFor(
      async () => {
        await new Promise((r) => setTimeout(r, 300));
        const stalled = written === last;
        last = written;
        return stalled;
      },
      30_000,
      'the writer to stall',
    );
    expect(written).toBeLessThan(total);
    const body = await ch.reader.readAll();
    await writing;
    expect(body.length).toBe(total);
    expect(body.every((b) => b === 7)).toBe(true);
  });

  it('removes a channel owned by a worker when that worker goes', async () => {
    const owner = spawnWorker('test/compat/fixtures/iii-channel-worker.mjs', { SVC_URL: engine.url });
    await owner.waitForOutput(/ready/);
    // both fixture processes provide chan::own; call until the new one answered (its refs die with it)
    const refs = (await iii.trigger({ function_id: 'chan::own', payload: {} })) as {
      reader: { channel_id: string; access_key: string };
    };
    const url = channelUrl(refs.reader.channel_id, refs.reader.access_key, 'read');
    await owner.kill();
    await peer.stop();
    await waitFor(async () => (await rawOpen(url)).status === 404, 10_000, 'the owned channel to go');
    peer = spawnWorker('test/compat/fixtures/iii-channel-worker.mjs', { SVC_URL: engine.url });
    await peer.waitForOutput(/ready/);
  });
});
