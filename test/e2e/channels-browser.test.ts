/**
 * Browser-side channel use: iii's browser SDK is not published on the npm registry, so this drives the channel
 * route the way it does — the WHATWG `WebSocket` API (undici's, the same interface as a browser's), ArrayBuffer
 * binary frames of 64 KiB, text messages, `close(1000, 'channel_close')` — against a real engine with an iii-sdk
 * worker process on the other end, in both directions.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocket as BrowserWebSocket } from 'undici';
import { registerWorker, type IIIClient } from 'iii-sdk';
import { spawnWorker, startEngine, waitForFunction, type Child, type EngineProcess } from '../harness.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

interface Ref {
  channel_id: string;
  access_key: string;
  direction: 'read' | 'write';
}

let engine: EngineProcess;
let peer: Child;
let iii: IIIClient;

beforeAll(async () => {
  engine = await startEngine();
  peer = spawnWorker('test/compat/fixtures/iii-channel-worker.mjs', { SVC_URL: engine.url });
  await peer.waitForOutput(/ready/);
  await waitForFunction(engine.url, 'chan::consume');
  iii = registerWorker(engine.url, { otel: { enabled: false }, workerName: 'browser-side' });
});

afterAll(async () => {
  await iii?.shutdown();
  await Promise.all([peer?.stop(), engine?.stop()]);
});

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const url = (ref: Ref): string =>
  `${engine.url}/ws/channels/${ref.channel_id}?key=${encodeURIComponent(ref.access_key)}&dir=${ref.direction}`;

async function create(): Promise<{ writer: Ref; reader: Ref }> {
  return (await iii.trigger({ function_id: 'engine::channels::create', payload: {} })) as { writer: Ref; reader: Ref };
}

describe('channels from a browser-style WebSocket client', () => {
  it('writes text and ArrayBuffer frames that an iii-sdk worker reads byte-exact', async () => {
    const { writer, reader } = await create();
    const consumed = iii.trigger({ function_id: 'chan::consume', payload: { reader } });
    const data = randomBytes(2 * 1024 * 1024 + 5);
    const ws = new BrowserWebSocket(url(writer));
    ws.binaryType = 'arraybuffer';
    await new Promise((resolve, reject) => {
      ws.addEventListener('open', resolve);
      ws.addEventListener('error', reject);
    });
    ws.send(JSON.stringify({ type: 'event', data: 'from the browser' }));
    for (let at = 0; at < data.length; at += 64 * 1024) {
      const chunk = data.subarray(at, at + 64 * 1024);
      ws.send(chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.byteLength));
    }
    ws.close(1000, 'channel_close');
    expect(await consumed).toEqual({
      bytes: data.length,
      sha256: sha256(data),
      messages: [JSON.stringify({ type: 'event', data: 'from the browser' })],
    });
  });

  it('reads what an iii-sdk worker writes: text as strings, binary as ArrayBuffers, until Close', async () => {
    const { writer, reader } = await create();
    const ws = new BrowserWebSocket(url(reader));
    ws.binaryType = 'arraybuffer';
    const chunks: Buffer[] = [];
    const texts: string[] = [];
    ws.addEventListener('message', (event: { data: unknown }) => {
      if (event.data instanceof ArrayBuffer) chunks.push(Buffer.from(event.data));
      else texts.push(String(event.data));
    });
    const closed = new Promise<number>((resolve) =>
      ws.addEventListener('close', (e: { code: number }) => resolve(e.code)),
    );
    await new Promise((resolve) => ws.addEventListener('open', resolve));
    const produced = (await iii.trigger({
      function_id: 'chan::produce',
      payload: { writer, size: 1_500_000, seed: 1 },
    })) as { sha256: string };
    expect(await closed).toBe(1000);
    const body = Buffer.concat(chunks);
    expect(body.length).toBe(1_500_000);
    expect(sha256(body)).toBe(produced.sha256);
    expect(texts).toEqual([JSON.stringify({ type: 'meta', size: 1_500_000 })]);
  });
});
