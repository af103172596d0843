/**
 * The engine's complete text frames are byte for byte what ws's own sender writes for the same message, at every
 * payload-length encoding (7, 16 and 64 bits) and for multi-byte characters.
 */
import { describe, expect, it } from 'vitest';
import * as ws from 'ws';
import { serverTextFrame as textFrame } from '@svc/sdk/core';

/** ws's own framing (`Sender.frame`, not in its type definitions). */
const { frame } = (ws as unknown as { Sender: { frame: (data: Buffer, options: object) => Buffer[] } }).Sender;

function wsFrame(text: string): Buffer {
  const options = { fin: true, opcode: 1, mask: false, readOnly: false, rsv1: false };
  return Buffer.concat(frame(Buffer.from(text), options));
}

describe('textFrame', () => {
  it('matches ws for every length encoding', () => {
    for (const length of [0, 1, 125, 126, 127, 65535, 65536, 70000]) {
      const text = 'x'.repeat(length);
      expect(textFrame(text).equals(wsFrame(text))).toBe(true);
    }
  });

  it('counts the payload length in UTF-8 bytes', () => {
    for (const text of ['é', '€'.repeat(50), '{"a":"日本語"}', '😀'.repeat(40000)]) {
      expect(textFrame(text).equals(wsFrame(text))).toBe(true);
    }
  });
});
