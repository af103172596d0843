/**
 * A text message as one complete WebSocket frame (RFC 6455 §5.2: FIN, opcode 1, the payload length in 7, 16 or 64
 * bits) in a single buffer: svc-stream writes one to every subscriber of a change. (The engine and the SDK lay
 * their frames out in a shared buffer per turn instead, frame-writer.ts.)
 */

/**
 * Bytes of frames held before they are written mid-turn. Frames of one turn leave together, but
 * not all of a large turn at its end: the peer starts on the first frames while this process builds the rest.
 * With 256 calls answered in one turn, writing the whole turn at its end made the processes of a path take turns
 * (caller, engine, executor each waiting for the previous one's whole batch); cut into parts (16 KiB, ~80 small
 * frames) they overlap, and both cores work. 8 KiB parts cost ~1 µs more CPU per call at 256 outstanding over the
 * three processes of a call (docs/performance.md, "Busy turns fill the same buffer").
 */
export const TURN_FLUSH_BYTES = 16384;

/** A server-to-client frame (unmasked) of `payload`: a string, or UTF-8 bytes already encoded. */
export function serverTextFrame(payload: string | Buffer): Buffer {
  const length = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
  const lengthBytes = length < 126 ? 0 : length < 65536 ? 2 : 8;
  const headerLength = 2 + lengthBytes;
  const frame = Buffer.allocUnsafe(headerLength + length);
  frame[0] = 0x81; // FIN + text
  if (length < 126) {
    frame[1] = length;
  } else if (length < 65536) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
    frame.writeUInt32BE(length >>> 0, 6);
  }
  if (typeof payload === 'string') frame.write(payload, headerLength, 'utf8');
  else payload.copy(frame, headerLength);
  return frame;
}
