/**
 * Pre-encoded frames: what svc-stream writes to a client socket is one well-formed WebSocket text frame, whatever
 * the payload length (7-, 16- and 64-bit length forms), as a standard receiver reads it.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { OutgoingFrame } from '../src/server/frame.js';
import { rawSocket } from '../src/server/write-batch.js';

let server: WebSocketServer;
let url: string;

beforeAll(async () => {
  server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((r) => server.once('listening', r));
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((r) => server.close(r)));

/** What a standard client receives when the server writes `bytes` to the socket as they are. */
async function receive(bytes: Buffer): Promise<{ text: string; isBinary: boolean }> {
  const accepted = new Promise<WebSocket>((r) => server.once('connection', r));
  const client = new WebSocket(url, { maxPayload: 0 });
  const got = new Promise<{ text: string; isBinary: boolean }>((resolve, reject) => {
    client.once('message', (data: Buffer, isBinary: boolean) => resolve({ text: data.toString('utf8'), isBinary }));
    client.once('error', reject);
  });
  rawSocket(await accepted)!.write(bytes);
  try {
    return await got;
  } finally {
    client.terminate();
  }
}

describe('OutgoingFrame', () => {
  it.each([0, 125, 126, 65535, 65536, 200_000])(
    'encodes a message of about %i bytes as one text frame',
    async (size) => {
      const value = { id: 'i1', text: 'x'.repeat(Math.max(0, size - 20)) };
      const frame = OutgoingFrame.json(value);
      const got = await receive(frame.wireBytes);
      expect(got.isBinary).toBe(false);
      expect(JSON.parse(got.text)).toEqual(value);
      // built once and shared by every subscriber
      expect(frame.wireBytes).toBe(frame.wireBytes);
    },
  );

  it('keeps multi-byte characters intact', async () => {
    const value = { text: 'héllo — 名前 ✓ 🚀' };
    expect(JSON.parse((await receive(OutgoingFrame.json(value).wireBytes)).text)).toEqual(value);
  });
});
