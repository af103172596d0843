/**
 * A text message as one complete WebSocket frame (RFC 6455 §5.2: FIN, opcode 1, the payload length in 7, 16 or 64
 * bits) in a single buffer. Written straight to the TCP socket of a connection that negotiated no extension, it
 * costs one buffer and one write per frame, where `ws.send` makes a header buffer, a payload buffer and two writes.
 * The engine and svc-stream send server frames (unmasked); this SDK sends client frames masked with the all-zero key
 * it always uses, so the payload goes as it is.
 */

/**
 * Bytes of frames a corked socket holds before they are written mid-turn. Frames of one turn leave together, but
 * not all of a large turn at its end: the peer starts on the first frames while this process builds the rest.
 * With 256 calls answered in one turn, writing the whole turn at its end made the processes of a path take turns
 * (caller, engine, executor each waiting for the previous one's whole batch); cut at 8 KiB (~40 small frames) they
 * overlap, and both cores work.
 */
export const TURN_FLUSH_BYTES = 8192;

/** A server-to-client frame (unmasked) of `payload`: a string, or UTF-8 bytes already encoded. */
export function serverTextFrame(payload: string | Buffer): Buffer {
  return textFrame(payload, false);
}

/** A client-to-server frame of `text`, masked with the all-zero key. */
export function zeroMaskedTextFrame(text: string): Buffer {
  return textFrame(text, true);
}

function textFrame(payload: string | Buffer, masked: boolean): Buffer {
  const length = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
  const lengthBytes = length < 126 ? 0 : length < 65536 ? 2 : 8;
  const headerLength = 2 + lengthBytes + (masked ? 4 : 0);
  const frame = Buffer.allocUnsafe(headerLength + length);
  frame[0] = 0x81; // FIN + text
  const maskBit = masked ? 0x80 : 0;
  if (length < 126) {
    frame[1] = maskBit | length;
  } else if (length < 65536) {
    frame[1] = maskBit | 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = maskBit | 127;
    frame.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
    frame.writeUInt32BE(length >>> 0, 6);
  }
  if (masked) frame.writeUInt32BE(0, 2 + lengthBytes); // the masking key: zero, so the payload is not transformed
  if (typeof payload === 'string') frame.write(payload, headerLength, 'utf8');
  else payload.copy(frame, headerLength);
  return frame;
}
