import { describe, expect, it } from 'vitest';
import { isUuid } from '../src/protocol.js';
import { newUuid, randomBase64url, uuidLead } from '../src/random-ids.js';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('random ids', () => {
  it('newUuid gives version 4 UUIDs in lowercase, as crypto.randomUUID does, across many pool refills', () => {
    const seen = new Set<string>();
    // 16 bytes each: 10,000 ids draw the 4 KiB pool ~40 times over
    for (let i = 0; i < 10_000; i++) {
      const id = newUuid();
      expect(id).toMatch(V4);
      expect(isUuid(id)).toBe(true);
      seen.add(id);
    }
    expect(seen.size).toBe(10_000);
  });

  it('newUuid sets only the version and variant bits: every other hex digit takes all sixteen values', () => {
    const digits = Array.from({ length: 36 }, () => new Set<string>());
    for (let i = 0; i < 2_000; i++) [...newUuid()].forEach((c, at) => digits[at]!.add(c));
    digits.forEach((values, at) => {
      if ([8, 13, 18, 23].includes(at)) expect([...values]).toEqual(['-']);
      else if (at === 14) expect([...values]).toEqual(['4']);
      else if (at === 19) expect([...values].sort()).toEqual(['8', '9', 'a', 'b']);
      else expect(values.size).toBe(16);
    });
  });

  it('puts a given number in the first eight hex digits, which uuidLead reads back; the rest stays random', () => {
    for (const lead of [0, 1, 255, 0xabcdef, 0x7fffffff, 0xffffffff]) {
      const ids = [newUuid(lead), newUuid(lead)];
      for (const id of ids) {
        expect(id).toMatch(V4);
        expect(id.slice(0, 8)).toBe(lead.toString(16).padStart(8, '0'));
        expect(uuidLead(id)).toBe(lead);
        expect(uuidLead(id.toUpperCase())).toBe(lead);
      }
      expect(ids[0]).not.toBe(ids[1]);
    }
    for (const bad of ['', 'not-a-uuid', `g${newUuid(5).slice(1)}`, newUuid(5).replace('-', 'x'), newUuid(5).slice(1)])
      expect(uuidLead(bad)).toBe(-1);
  });

  it('randomBase64url gives distinct keys of the asked length in base64url, across pool refills', () => {
    const seen = new Set<string>();
    // 24 bytes each: 1,000 keys draw the 4 KiB pool ~6 times over, the pool's tail left unused at each refill
    for (let i = 0; i < 1_000; i++) {
      const key = randomBase64url(24);
      expect(key).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(Buffer.from(key, 'base64url')).toHaveLength(24);
      seen.add(key);
    }
    expect(seen.size).toBe(1_000);
  });
});
