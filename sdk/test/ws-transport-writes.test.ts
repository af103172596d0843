/**
 * How the WebSocket transport writes: the frames of one tick leave in one socket write (the server's socket sees
 * them arrive together, not frame by frame), and client frames carry an all-zero masking key, a data channel's
 * writer's as well. Checked on the bytes a plain `ws` server's TCP socket receives.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ChannelWriter, WsTransport } from '../src/index.js';
import { TURN_FLUSH_BYTES } from '../src/connection/text-frame.js';
import { waitFor } from '../../test/harness.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/chunk-server.mjs', import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

interface Seen {
  chunks: string[];
  messages: string[];
}

/** The server runs in its own process, so it reads while this one writes, as an engine would. */
async function server(): Promise<{ url: string; seen: () => Promise<{ chunks: Buffer[]; messages: string[] }> }> {
  const child = fork(FIXTURE, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.push(child);
  const { port } = await new Promise<{ port: number }>((resolve) => child.once('message', resolve as never));
  const seen = async () => {
    const answer = new Promise<Seen>((resolve) => child.once('message', resolve as never));
    child.send('report');
    const { chunks, messages } = await answer;
    return { chunks: chunks.map((c) => Buffer.from(c, 'base64')), messages };
  };
  return { url: `ws://127.0.0.1:${port}`, seen };
}

async function openTransport(url: string): Promise<WsTransport> {
  const t = new WsTransport(url);
  let open = false;
  t.start({ onOpen: () => (open = true), onMessage: () => undefined, onClose: () => undefined });
  await waitFor(() => open, 3000, 'transport open');
  return t;
}

describe('WsTransport writes', () => {
  it('sends the frames of one tick in one write, each with an all-zero masking key', async () => {
    const s = await server();
    const t = await openTransport(s.url);
    const frames = 100;
    for (let i = 0; i < frames; i++) t.send({ type: 'registerfunction', id: `writes::f${i}` });
    let seen = await s.seen();
    for (let i = 0; i < 100 && seen.messages.length < frames; i++) seen = await s.seen();
    expect(seen.messages.map((m) => (JSON.parse(m) as { id: string }).id)).toEqual(
      Array.from({ length: frames }, (_, i) => `writes::f${i}`),
    );
    // one write of ~4 KiB: loopback delivers it in one read (never one read per frame, as without coalescing)
    expect(seen.chunks.length).toBeLessThan(5);
    const first = seen.chunks[0]!;
    expect(first[1]! & 0x80).toBe(0x80); // masked, as RFC 6455 requires of a client
    const keyAt = (first[1]! & 0x7f) === 126 ? 4 : 2;
    expect([...first.subarray(keyAt, keyAt + 4)]).toEqual([0, 0, 0, 0]);
    await t.close();
  });

  it('writes a large tick in parts of TURN_FLUSH_BYTES as it goes, in order', async () => {
    const s = await server();
    const t = await openTransport(s.url);
    // the TCP socket's writes: one per part the transport hands it
    type Chunk = { chunk: Buffer };
    const socket = (
      t as unknown as {
        writer: {
          socket: {
            _writev: (chunks: Chunk[], cb: () => void) => void;
            _write: (chunk: Buffer, encoding: string, cb: () => void) => void;
          };
        };
      }
    ).writer.socket;
    const writev = socket._writev.bind(socket);
    const write = socket._write.bind(socket);
    const writes: number[] = [];
    socket._writev = (chunks, cb) => {
      for (const c of chunks) writes.push(c.chunk.length);
      writev(chunks, cb);
    };
    socket._write = (chunk, encoding, cb) => {
      writes.push(chunk.length);
      write(chunk, encoding, cb);
    };
    // ~55 bytes a frame: about eight parts' worth
    const frames = Math.ceil((8 * TURN_FLUSH_BYTES) / 55);
    for (let i = 0; i < frames; i++) t.send({ type: 'registerfunction', id: `writes::big${i}` });
    let seen = await s.seen();
    for (let i = 0; i < 100 && seen.messages.length < frames; i++) seen = await s.seen();
    expect(seen.messages.map((m) => (JSON.parse(m) as { id: string }).id)).toEqual(
      Array.from({ length: frames }, (_, i) => `writes::big${i}`),
    );
    const total = writes.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(5 * TURN_FLUSH_BYTES);
    // parts of up to the bound plus one frame (a part also ends where its buffer does): neither one write for the
    // whole turn nor one per frame
    for (const w of writes) expect(w).toBeLessThan(TURN_FLUSH_BYTES + 100);
    expect(writes.length).toBeGreaterThanOrEqual(Math.floor(total / (TURN_FLUSH_BYTES + 100)));
    expect(writes.length).toBeLessThanOrEqual(2 * Math.ceil(total / TURN_FLUSH_BYTES));
    await t.close();
  });

  it('sends frames of later ticks too (the socket is uncorked after each tick)', async () => {
    const s = await server();
    const t = await openTransport(s.url);
    for (let i = 0; i < 3; i++) {
      t.send({ type: 'registerfunction', id: `writes::late${i}` });
      let seen = await s.seen();
      for (let n = 0; n < 100 && seen.messages.length < i + 1; n++) seen = await s.seen();
      expect(seen.messages).toHaveLength(i + 1);
    }
    await t.close();
  });

  it("writes a data channel's chunks with an all-zero masking key, as they are", async () => {
    const s = await server();
    const writer = new ChannelWriter(s.url, { channel_id: 'c1', access_key: 'k', direction: 'write' });
    const body = Buffer.alloc(1000, 0x61);
    await new Promise<void>((resolve, reject) => writer.stream.write(body, (err) => (err ? reject(err) : resolve())));
    let seen = await s.seen();
    for (let i = 0; i < 100 && seen.messages.length < 1; i++) seen = await s.seen();
    expect(seen.messages).toEqual(['a'.repeat(1000)]);
    const wire = Buffer.concat(seen.chunks);
    expect(wire[0]).toBe(0x82); // FIN, binary
    expect(wire[1]).toBe(0x80 | 126); // masked, 16-bit length
    expect(wire.readUInt16BE(2)).toBe(1000);
    expect([...wire.subarray(4, 8)]).toEqual([0, 0, 0, 0]);
    expect(wire.subarray(8, 1008).equals(body)).toBe(true); // the payload as it is, not XORed
    writer.stream.destroy();
  });
});
