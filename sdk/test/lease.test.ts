/** Lease names: the prefix the engine makes, and the ids named under it, as the engine and svc-http read them. */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isLeasePrefix, leasedChannelId, leasePrefix, parseLeasedChannelId } from '../src/channels/lease.js';

describe('isLeasePrefix', () => {
  it('accepts every prefix leasePrefix makes, and the ids named under it parse back', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 10, maxLength: 10 }), fc.nat(2 ** 40), (bytes, n) => {
        const prefix = leasePrefix(Buffer.from(bytes));
        expect(isLeasePrefix(prefix)).toBe(true);
        expect(parseLeasedChannelId(leasedChannelId(prefix, n, 'r'))).toMatchObject({ prefix, n, kind: 'r' });
      }),
    );
  });

  it.each([
    ['upper-case hex', leasePrefix(randomBytes(10)).toUpperCase().replace(/[0-9]/g, 'A')],
    ['a whole UUID', '3b241101-e2bb-4255-8caf-4136c566a962'],
    ['a quote inside', '3b241101-e2bb-4255-8c"f'],
    ['not a string', 42],
    ['empty', ''],
  ])('refuses %s', (_name, prefix) => {
    expect(isLeasePrefix(prefix)).toBe(false);
  });
});
