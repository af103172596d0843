/**
 * The frames the SDK and the engine write themselves are byte for byte what ws's own sender writes (the SDK's with
 * its all-zero masking key, the engine's and svc-stream's unmasked), at every payload-length encoding (7, 16 and
 * 64 bits) and for multi-byte characters; and a FrameWriter hands them to the socket in order, in parts, ahead of
 * anything ws writes to the socket itself. Batched, each part is one message of its frames separated by RS, as ws
 * would frame that text.
 */
import { Writable } from 'node:stream';
import { setImmediate as turn } from 'node:timers/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as ws from 'ws';
import { FrameWriter } from '../src/connection/frame-writer.js';
import { serverTextFrame, TURN_FLUSH_BYTES } from '../src/connection/text-frame.js';

/** ws's own framing (`Sender.frame`, not in its type definitions). */
const { frame } = (ws as unknown as { Sender: { frame: (data: Buffer, options: object) => Buffer[] } }).Sender;

function wsFrame(text: string, mask: boolean): Buffer {
  const options = {
    fin: true,
    opcode: 1,
    mask,
    maskBuffer: Buffer.alloc(4),
    generateMask: (m: Buffer) => m.fill(0),
    readOnly: false,
    rsv1: false,
  };
  return Buffer.concat(frame(Buffer.from(text), options));
}

const TEXTS = [
  '',
  'x',
  'x'.repeat(125),
  'x'.repeat(126),
  'x'.repeat(65535),
  'x'.repeat(70000),
  '€'.repeat(50),
  '😀'.repeat(40000),
  '€'.repeat(21845), // 65,535 bytes: the largest 16-bit length, from the most units that are sure to fit one
  '€'.repeat(21846), // 65,538 bytes: a 64-bit length
  '😀'.repeat(63), // 126 units, 252 bytes
  `${'x'.repeat(200)}\ud800${'é'.repeat(30)}`, // a lone surrogate (written as U+FFFD, 3 bytes)
];

/**
 * Texts for the property tests: any code units (from `minBinary` long), multi-byte graphemes, and lengths around
 * the 7-bit / 16-bit length boundary (125/126).
 */
function frameTexts(minBinary: number): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ unit: 'binary', minLength: minBinary, maxLength: 300 }),
    fc.string({ unit: 'grapheme', minLength: 30, maxLength: 200 }),
    fc.string({ minLength: 120, maxLength: 130 }),
  );
}

/** Frames of 200 characters in a turn of about five parts. */
const LARGE_TURN = Math.ceil((5 * TURN_FLUSH_BYTES) / 204);

/** A socket that keeps every chunk written to it. */
function sink(): { socket: Writable; chunks: Buffer[] } {
  const chunks: Buffer[] = [];
  const socket = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  return { socket, chunks };
}

describe('serverTextFrame', () => {
  it('matches ws for every length encoding and for multi-byte characters', () => {
    for (const text of TEXTS) expect(serverTextFrame(text).equals(wsFrame(text, false))).toBe(true);
  });
});

describe('FrameWriter', () => {
  it('writes any text as ws would, around every length boundary', async () => {
    const texts = frameTexts(100);
    await fc.assert(
      fc.asyncProperty(fc.array(texts, { minLength: 1, maxLength: 8 }), fc.boolean(), async (batch, masked) => {
        const { socket, chunks } = sink();
        const writer = new FrameWriter(socket, masked);
        for (const text of batch) writer.text(text);
        await turn();
        expect(Buffer.concat(chunks).equals(Buffer.concat(batch.map((t) => wsFrame(t, masked))))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  for (const masked of [true, false]) {
    it(`writes ${masked ? 'client (zero-masked)' : 'server'} frames as ws would, in one chunk per turn`, async () => {
      const { socket, chunks } = sink();
      const writer = new FrameWriter(socket, masked);
      for (const text of TEXTS.slice(0, 4)) writer.text(text);
      expect(chunks).toHaveLength(0); // held until the turn ends
      await turn();
      expect(chunks).toHaveLength(1);
      expect(chunks[0]!.equals(Buffer.concat(TEXTS.slice(0, 4).map((t) => wsFrame(t, masked))))).toBe(true);
      for (const text of TEXTS.slice(4)) writer.text(text);
      await turn();
      expect(Buffer.concat(chunks.slice(1)).equals(Buffer.concat(TEXTS.slice(4).map((t) => wsFrame(t, masked))))).toBe(
        true,
      );
    });
  }

  it('writes a large turn in parts of TURN_FLUSH_BYTES as it goes', () => {
    const { socket, chunks } = sink();
    const writer = new FrameWriter(socket, false);
    const text = 'y'.repeat(200);
    for (let i = 0; i < LARGE_TURN; i++) writer.text(text);
    // five parts' worth of 204-byte frames: the parts that reached the bound are out before the turn ends
    expect(chunks.length).toBeGreaterThanOrEqual(4);
    for (const c of chunks) expect(c.length).toBeLessThan(TURN_FLUSH_BYTES + 204);
    writer.flush();
    expect(
      Buffer.concat(chunks).equals(Buffer.concat(Array.from({ length: LARGE_TURN }, () => wsFrame(text, false)))),
    ).toBe(true);
  });

  it('puts what it holds on the socket before anything else written to it (ws pings, the close frame)', () => {
    const { socket, chunks } = sink();
    const writer = new FrameWriter(socket, false);
    writer.text('first');
    socket.write(Buffer.from([0x88, 0x00])); // a close frame, as ws writes it
    expect(Buffer.concat(chunks).equals(Buffer.concat([wsFrame('first', false), Buffer.from([0x88, 0x00])]))).toBe(
      true,
    );
  });

  // 20 frames of 304 bytes: the first ones fill the turn's first buffer (2 KiB), the rest a large one
  const busyTurn = (text: string): Buffer => Buffer.concat(Array.from({ length: 20 }, () => wsFrame(text, false)));

  it('fills the same large buffer turn after turn while the socket takes every part at once', async () => {
    const parts: Buffer[] = [];
    const socket = new Writable({
      write(chunk: Buffer, _encoding, done) {
        parts.push(chunk); // the chunk itself, not a copy: its memory is what a later turn may fill
        done();
      },
    });
    const writer = new FrameWriter(socket, false);
    const large: ArrayBufferLike[] = [];
    for (const text of ['a', 'b', 'c'].map((c) => c.repeat(300))) {
      for (let i = 0; i < 20; i++) writer.text(text);
      await turn();
      const turnParts = parts.splice(0);
      // read before the next turn is written, as the kernel copies a part during the write
      expect(Buffer.concat(turnParts).equals(busyTurn(text))).toBe(true);
      large.push(turnParts.at(-1)!.buffer);
    }
    expect(large[1]).toBe(large[0]);
    expect(large[2]).toBe(large[0]);
    // a frame of ws's own between turns (a heartbeat ping) lets the kept buffer go: a quiet connection holds none
    socket.write(Buffer.from([0x89, 0x00]));
    parts.splice(0);
    for (let i = 0; i < 20; i++) writer.text('d'.repeat(300));
    await turn();
    expect(parts.at(-1)!.buffer).not.toBe(large[0]);
  });

  it('never refills a buffer while a part cut from it waits in the socket queue', async () => {
    const held: Buffer[] = [];
    const pending: (() => void)[] = [];
    const socket = new Writable({
      write(chunk: Buffer, _encoding, done) {
        held.push(chunk); // a write the kernel has not finished: the chunk stays referenced until it is done
        pending.push(() => done());
      },
    });
    const writer = new FrameWriter(socket, false);
    const texts = ['a', 'b', 'c'].map((c) => c.repeat(300));
    for (const text of texts) {
      for (let i = 0; i < 20; i++) writer.text(text);
      await turn();
    }
    while (pending.length > 0) {
      pending.shift()!();
      await turn();
    }
    expect(Buffer.concat(held).equals(Buffer.concat(texts.map(busyTurn)))).toBe(true);
  });

  it('drops what it holds once the socket can no longer be written', async () => {
    const { socket, chunks } = sink();
    const writer = new FrameWriter(socket, false);
    writer.text('late');
    socket.destroy();
    await turn();
    expect(chunks).toHaveLength(0);
  });
});

describe('FrameWriter, batched', () => {
  const RS = '\x1e';

  it('writes the frames of a part as one message, their texts separated by RS, as ws would frame it', async () => {
    const texts = frameTexts(0);
    await fc.assert(
      fc.asyncProperty(fc.array(texts, { minLength: 1, maxLength: 8 }), fc.boolean(), async (batch, masked) => {
        const { socket, chunks } = sink();
        const writer = new FrameWriter(socket, masked, true);
        for (const text of batch) writer.text(text);
        await turn();
        expect(chunks).toHaveLength(1);
        expect(chunks[0]!.equals(wsFrame(batch.join(RS), masked))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  for (const masked of [true, false]) {
    it(`writes every length encoding and large frames as messages of their own (${masked ? 'client' : 'server'})`, async () => {
      const { socket, chunks } = sink();
      const writer = new FrameWriter(socket, masked, true);
      // small frames share a message; a frame over TURN_FLUSH_BYTES units goes alone
      for (const text of TEXTS) writer.text(text);
      await turn();
      const expected: string[] = [];
      let open: string[] = [];
      for (const text of TEXTS) {
        if (text.length > TURN_FLUSH_BYTES && open.length > 0) {
          expected.push(open.join(RS));
          open = [];
        }
        open.push(text);
        if (Buffer.byteLength(open.join(RS)) >= TURN_FLUSH_BYTES) {
          expected.push(open.join(RS));
          open = [];
        }
      }
      if (open.length > 0) expected.push(open.join(RS));
      expect(Buffer.concat(chunks).equals(Buffer.concat(expected.map((t) => wsFrame(t, masked))))).toBe(true);
    });
  }

  it('writes a large turn in messages of about TURN_FLUSH_BYTES as it goes', () => {
    const { socket, chunks } = sink();
    const writer = new FrameWriter(socket, false, true);
    const text = 'y'.repeat(200);
    for (let i = 0; i < LARGE_TURN; i++) writer.text(text);
    expect(chunks.length).toBeGreaterThanOrEqual(4);
    for (const c of chunks) expect(c.length).toBeLessThan(TURN_FLUSH_BYTES + 205);
    writer.flush();
    const frames = chunks.map((c) => c.subarray(4).toString().split(RS)).flat();
    expect(frames).toEqual(Array.from({ length: LARGE_TURN }, () => text));
  });

  it('puts what it holds on the socket, as a complete message, before anything else written to it', () => {
    const { socket, chunks } = sink();
    const writer = new FrameWriter(socket, false, true);
    writer.text('first');
    writer.text('second');
    socket.write(Buffer.from([0x88, 0x00])); // a close frame, as ws writes it
    expect(
      Buffer.concat(chunks).equals(Buffer.concat([wsFrame(`first${RS}second`, false), Buffer.from([0x88, 0x00])])),
    ).toBe(true);
  });
});
