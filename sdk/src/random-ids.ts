/**
 * Random ids made at a high rate: invocation ids (one per call, and one per trigger delivery in the engine), request
 * and job ids, trace and span ids, data channels' access keys. Their random bytes come from one pool refilled 4 KiB
 * at a time (as `crypto.randomUUID` does): a `randomBytes` call per id costs more than the rest of a trace-context
 * hop.
 *
 * `newUuid()` returns a version 4 UUID as one flat string. `crypto.randomUUID()` joins twenty pieces, so its result
 * is a rope that V8 flattens the first time it is hashed (a Map key: every call in flight is kept by its id) or
 * written into a frame; an id made, kept, written and found again costs ~200–290 ns more that way than as a string made
 * in one piece (`node scripts/bench/codec-micro.mjs`). Each id takes bytes no other id has used.
 */
import { randomFillSync } from 'node:crypto';
import { HEX_VALUE, NOT_HEX } from './hex.js';

const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolOffset = POOL_SIZE;

/** The offset in `pool` of `bytes` fresh random bytes. */
function take(bytes: number): number {
  if (poolOffset + bytes > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const at = poolOffset;
  poolOffset += bytes;
  return at;
}

/** `bytes` random bytes as lowercase hex. */
export function randomHex(bytes: number): string {
  const at = take(bytes);
  return pool.toString('hex', at, at + bytes);
}

/** `bytes` random bytes as base64url (no padding). */
export function randomBase64url(bytes: number): string {
  const at = take(bytes);
  return pool.toString('base64url', at, at + bytes);
}

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
const DASH = 0x2d;
/** Where the UUID's text is laid out before it becomes a string. */
const uuidText = Buffer.alloc(36);

/**
 * A random (version 4, RFC 9562) UUID in lowercase, as `crypto.randomUUID()` gives, made as one flat string. Given
 * `lead` (an unsigned 32-bit number), its first eight hex digits are that number and the other 92 bits random: the
 * engine numbers the ids it makes for trigger deliveries so that it finds their invocations without hashing them.
 */
export function newUuid(lead?: number): string {
  const at = take(16);
  if (lead !== undefined) pool.writeUInt32BE(lead >>> 0, at);
  let o = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) uuidText[o++] = DASH;
    let byte = pool[at + i]!;
    // the version (4) and the variant (binary 10)
    if (i === 6) byte = (byte & 0x0f) | 0x40;
    else if (i === 8) byte = (byte & 0x3f) | 0x80;
    uuidText[o++] = HEX_DIGITS[byte >> 4]!;
    uuidText[o++] = HEX_DIGITS[byte & 0x0f]!;
  }
  return uuidText.toString('latin1', 0, 36);
}

/** The number `newUuid(lead)` put in `id`'s first eight hex digits (either case), or -1 when they are not hex. */
export function uuidLead(id: string): number {
  if (id.length !== 36 || id.charCodeAt(8) !== DASH) return -1;
  let n = 0;
  for (let i = 0; i < 8; i++) {
    const digit = HEX_VALUE[id.charCodeAt(i)]!;
    if (digit === NOT_HEX) return -1;
    n = n * 16 + digit;
  }
  return n;
}
