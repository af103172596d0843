/**
 * Text frames written to a WebSocket's TCP socket the way a busy connection wants them: the frames of one turn of
 * the event loop are laid out one after another in a shared buffer and handed to the socket as one chunk, at the
 * end of the turn (`setImmediate`, once the turn's I/O callbacks have run) or as soon as a part reaches
 * `TURN_FLUSH_BYTES`, so the peer starts on the first frames while this process builds the rest. Per frame this
 * costs a header and a UTF-8 copy into the buffer, not a buffer, a stream write and an iovec of its own.
 *
 * For a connection that negotiated no extension (the engine offers none, the SDK asks for none), where every frame
 * is a plain frame. Frames of `ws`'s own (pings, pongs, the close handshake) are written by `ws` straight to the
 * socket: the writer takes over the socket's `write` so that whatever it holds goes first, and the order on the
 * wire is the order of the calls. Server frames are unmasked; client frames carry the all-zero masking key, so the
 * payload goes as it is (RFC 6455 §5.3 requires the key, not a random one, of a client that is not a browser).
 *
 * Batched (the peer accepts frame batches, `FEATURE_BATCH`): the frames of a part go as one WebSocket message,
 * their texts separated by `FRAME_SEPARATOR`, so the peer's WebSocket library parses one message per part instead
 * of one per frame (docs/performance.md, "Frame batches"). Room for the message's header is kept in front of its
 * first frame and the header written there once the part is complete. A frame larger than `TURN_FLUSH_BYTES`
 * starts a message of its own, so a batch never holds more than about one part plus one frame.
 *
 * Ownership: holds the current buffer until the end of the turn, and after it the last large buffer when nothing
 * else refers to it; `flush()` writes what is held.
 */
import type { Writable } from 'node:stream';
import { TURN_FLUSH_BYTES } from './text-frame.js';

/** `FRAME_SEPARATOR` as a byte. */
const SEPARATOR_BYTE = 0x1e;
/** Room kept in front of a batch for its header: 2 bytes, a 64-bit length, a masking key. */
const HEADER_ROOM = 14;

/**
 * The first buffer of a turn: small enough to come from Node's shared buffer pool (no allocation of its own), so a
 * turn with one frame (a lone call, a sequential caller) costs what a frame buffer of its own did.
 */
const FIRST_BUFFER_BYTES = 2048;
/**
 * A buffer for a turn that outgrew its first one: parts are cut from it until the next frame no longer fits. When
 * the kernel took every part cut from it at once (none waits in the socket's queue, so nothing else refers to it),
 * it is kept for the next such turn instead of a new one being allocated. A busy connection holds one (64 KiB); a
 * connection that never had a busy turn holds none, and one that went quiet lets it go at its next heartbeat.
 */
const BUFFER_BYTES = 4 * TURN_FLUSH_BYTES;
/** The most UTF-16 units whose UTF-8 is sure to fit a 16-bit frame length (3 bytes per unit at most). */
const MAX_CHARS_16 = Math.floor(65535 / 3);

export class FrameWriter {
  private buffer: Buffer | undefined;
  /** Where the part being filled starts in `buffer`, and where it ends. */
  private partStart = 0;
  private at = 0;
  /** Batched: where the open message's payload starts in `buffer` (-1: no message open). */
  private payloadStart = -1;
  private turnQueued = false;
  /** A large buffer whose every chunk the socket took in full (nothing refers to it): the next one to fill. */
  private spare: Buffer | undefined;
  /** Every chunk cut from `buffer` so far went to the kernel at once (none waits in the socket's queue). */
  private taken = true;
  private readonly write: (chunk: Buffer) => void;
  private readonly endTurn = (): void => {
    this.turnQueued = false;
    this.flush();
    this.retire();
    this.partStart = 0;
    this.at = 0;
  };

  constructor(
    private readonly socket: Writable,
    private readonly masked: boolean,
    /** Frames go in batches (the peer announced `FEATURE_BATCH`). */
    readonly batched = false,
  ) {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called on `socket` below
    const write = socket.write as (...args: unknown[]) => boolean;
    this.write = (chunk) => {
      write.call(socket, chunk);
      // a chunk the kernel did not take at once stays referenced by the socket's queue until it is written
      if (socket.writableLength !== 0) this.taken = false;
    };
    // ws writes its own frames with socket.write: what this writer holds must reach the socket before them. Those
    // frames (heartbeat pings and pongs, the close handshake) also tell a quiet connection: one written between
    // turns lets the large buffer kept for busy turns go, so a connection that went quiet holds none for long.
    const before = (): void => {
      this.flush();
      if (!this.turnQueued) this.spare = undefined;
    };
    socket.write = function (this: Writable, ...args: unknown[]): boolean {
      before();
      return write.apply(socket, args);
    } as Writable['write'];
  }

  /** Queues one text frame of `text`; it leaves at the end of the turn or with its part. */
  text(text: string): void {
    if (this.batched) {
      this.batch(text);
      return;
    }
    const chars = text.length;
    // A text of 126 to 21,845 UTF-16 units is 126 to 65,535 bytes of UTF-8 whatever it holds: its header is the
    // 16-bit length form, so it is written with one UTF-8 write and its length set after (no byteLength pass).
    const oneWrite = chars >= 126 && chars <= MAX_CHARS_16;
    const length = oneWrite ? -1 : Buffer.byteLength(text);
    const lengthBytes = oneWrite ? 2 : length < 126 ? 0 : length < 65536 ? 2 : 8;
    const frameBytes = 2 + lengthBytes + (this.masked ? 4 : 0) + (oneWrite ? 3 * chars : length);
    let buffer = this.buffer;
    if (buffer === undefined || buffer.length - this.at < frameBytes) {
      this.flush();
      buffer =
        buffer === undefined && frameBytes <= FIRST_BUFFER_BYTES
          ? Buffer.allocUnsafe(FIRST_BUFFER_BYTES)
          : this.large(frameBytes);
      this.buffer = buffer;
      this.partStart = 0;
      this.at = 0;
    }
    // one write: the 16-bit length is set once the UTF-8 is written
    const at = writeHeader(buffer, this.at, oneWrite ? 0 : length, lengthBytes, this.masked);
    const written = buffer.write(text, at, oneWrite ? buffer.length - at : length, 'utf8');
    if (oneWrite) buffer.writeUInt16BE(written, this.at + 2);
    this.at = at + written;
    if (!this.turnQueued) {
      this.turnQueued = true;
      setImmediate(this.endTurn);
    }
    if (this.at - this.partStart >= TURN_FLUSH_BYTES) this.flush();
  }

  /** Batched: `text` appended to the open message (after a separator), or as the first frame of a new one. */
  private batch(text: string): void {
    const chars = text.length;
    // a large frame goes as a message of its own
    if (chars > TURN_FLUSH_BYTES && this.payloadStart >= 0) this.flush();
    let buffer = this.buffer;
    // the room this frame needs: a separator or a header's room, and its UTF-8 (3 bytes per unit at most, else
    // counted exactly)
    const room = this.payloadStart >= 0 ? 1 : HEADER_ROOM;
    if (buffer === undefined || buffer.length - this.at < room + 3 * chars) {
      const bytes = Buffer.byteLength(text);
      if (buffer === undefined || buffer.length - this.at < room + bytes) {
        this.flush();
        const size = HEADER_ROOM + bytes;
        buffer =
          this.buffer === undefined && size <= FIRST_BUFFER_BYTES
            ? Buffer.allocUnsafe(FIRST_BUFFER_BYTES)
            : this.large(size);
        this.buffer = buffer;
        this.partStart = 0;
        this.at = 0;
      }
    }
    let at = this.at;
    if (this.payloadStart < 0) {
      at += HEADER_ROOM;
      this.payloadStart = at;
    } else buffer[at++] = SEPARATOR_BYTE;
    this.at = at + buffer.write(text, at, buffer.length - at, 'utf8');
    if (!this.turnQueued) {
      this.turnQueued = true;
      setImmediate(this.endTurn);
    }
    if (this.at - this.payloadStart >= TURN_FLUSH_BYTES) this.flush();
  }

  /** A buffer of at least `bytes` for a turn that outgrew its first one: the spare when it is large enough. */
  private large(bytes: number): Buffer {
    this.retire();
    const spare = this.spare;
    if (spare !== undefined && bytes <= spare.length) {
      this.spare = undefined;
      return spare;
    }
    return Buffer.allocUnsafeSlow(Math.max(BUFFER_BYTES, bytes));
  }

  /** Lets go of the current buffer: kept as the spare when it is a large one nothing else refers to. */
  private retire(): void {
    const buffer = this.buffer;
    if (buffer !== undefined && this.taken && buffer.length === BUFFER_BYTES) this.spare = buffer;
    this.buffer = undefined;
    this.taken = true;
  }

  /** Batched: writes the open message's header in the room in front of its payload; where the header starts. */
  private closeMessage(): number {
    const payloadStart = this.payloadStart;
    this.payloadStart = -1;
    const length = this.at - payloadStart;
    const lengthBytes = length < 126 ? 0 : length < 65536 ? 2 : 8;
    const start = payloadStart - (this.masked ? 4 : 0) - lengthBytes - 2;
    writeHeader(this.buffer!, start, length, lengthBytes, this.masked);
    return start;
  }

  /**
   * Hands what is held to the socket now, as one chunk (the rest of the buffer stays for later parts: the chunk
   * is a view of its own bytes only). Dropped when the socket can no longer be written.
   */
  flush(): void {
    if (this.at === this.partStart) return;
    const from = this.payloadStart >= 0 ? this.closeMessage() : this.partStart;
    const part = this.buffer!.subarray(from, this.at);
    this.partStart = this.at;
    if (this.socket.writable) this.write(part);
  }
}

/**
 * A text frame's header at `start`: FIN and opcode 1, the mask bit, `length` in `lengthBytes` (0: in the second
 * byte; 2 or 8: after it), and for a client frame the all-zero masking key (the payload is not transformed).
 * Returns where the payload starts.
 */
function writeHeader(buffer: Buffer, start: number, length: number, lengthBytes: number, masked: boolean): number {
  buffer[start] = 0x81; // FIN + text
  const maskBit = masked ? 0x80 : 0;
  let at = start + 2;
  if (lengthBytes === 0) buffer[start + 1] = maskBit | length;
  else if (lengthBytes === 2) {
    buffer[start + 1] = maskBit | 126;
    buffer.writeUInt16BE(length, at);
    at += 2;
  } else {
    buffer[start + 1] = maskBit | 127;
    buffer.writeUInt32BE(Math.floor(length / 2 ** 32), at);
    buffer.writeUInt32BE(length >>> 0, at + 4);
    at += 8;
  }
  if (!masked) return at;
  buffer.writeUInt32BE(0, at);
  return at + 4;
}
