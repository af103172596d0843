/**
 * A server-to-client text message encoded once as a complete WebSocket frame (RFC 6455 §5.2: FIN, opcode 1,
 * unmasked, payload length in 7, 16 or 64 bits) and written as is to every subscriber's socket: one change sent
 * to thousands of clients costs one `JSON.stringify`, one encoding and one buffer, and each client one socket
 * write of that same buffer.
 */
import { serverTextFrame } from '@svc/sdk/core';

export class OutgoingFrame {
  private wire: Buffer | undefined;

  /** `payload` is the UTF-8 JSON of the message. */
  constructor(readonly payload: Buffer) {}

  static json(value: unknown): OutgoingFrame {
    return new OutgoingFrame(Buffer.from(JSON.stringify(value)));
  }

  /** Header and payload in one buffer, built at the first use and shared (never modified). */
  get wireBytes(): Buffer {
    return (this.wire ??= serverTextFrame(this.payload));
  }
}
