/**
 * The SDK's complete client frames are byte for byte what ws's own sender writes with the SDK's all-zero masking
 * key, at every payload-length encoding (7, 16 and 64 bits) and for multi-byte characters.
 */
import { describe, expect, it } from 'vitest';
import * as ws from 'ws';
import { zeroMaskedTextFrame } from '../src/connection/text-frame.js';

/** ws's own framing (`Sender.frame`, not in its type definitions). */
const { frame } = (ws as unknown as { Sender: { frame: (data: Buffer, options: object) => Buffer[] } }).Sender;

function wsFrame(text: string): Buffer {
  const options = {
    fin: true,
    opcode: 1,
    mask: true,
    maskBuffer: Buffer.alloc(4),
    generateMask: (mask: Buffer) => mask.fill(0),
    readOnly: false,
    rsv1: false,
  };
  return Buffer.concat(frame(Buffer.from(text), options));
}

describe('zeroMaskedTextFrame', () => {
  it('matches ws for every length encoding and for multi-byte characters', () => {
    for (const text of [
      '',
      'x',
      'x'.repeat(125),
      'x'.repeat(126),
      'x'.repeat(65535),
      'x'.repeat(70000),
      '€'.repeat(50),
      '😀'.repeat(40000),
    ]) {
      expect(zeroMaskedTextFrame(text).equals(wsFrame(text))).toBe(true);
    }
  });
});
