/**
 * Leased channels (svc extension, never needed by an iii-sdk client): `engine::channels::lease` gives the caller
 * a channel namespace, `{prefix, secret}`, tied to its connection. The caller then names channels itself, with no
 * engine call: `leasedChannelId(prefix, n, kind)` (n a number the caller never reuses) has the access key
 * `leasedChannelKey(secret, leasedChannelBase(prefix, n))`. The engine makes such a channel only when a socket first
 * comes for one of its ends, so a channel nobody opens costs the engine nothing. svc-http names the two channels of
 * a request this way: most handlers return a value and never open either.
 *
 * A leased channel's id is a UUID like any other channel's (the wire's `channel_id`): the prefix is its first four
 * groups (80 random bits, `xxxxxxxx-xxxx-xxxx-xxxx`), and the last group is the kind (`0` body, `1` response) and n
 * in 11 lowercase hex digits. Each number and kind has exactly one id.
 *
 * Kinds: `b`, a request body that is already over (the engine holds the write end and it ends empty at once);
 * `r`, a response (the engine calls the lease's `notify_function_id` with `{channel_id}` once its write end is
 * taken). `engine::channels::retire {prefix, below}` tells the engine that numbers under `below` are over: their
 * channels are refused from then on, and those that were opened but still wait for an end are removed.
 */
import * as crypto from 'node:crypto';

export const LEASE_CHANNELS_FUNCTION = 'engine::channels::lease';
export const RETIRE_CHANNELS_FUNCTION = 'engine::channels::retire';

export type LeasedChannelKind = 'b' | 'r';

/** What `engine::channels::lease` answers. */
export interface ChannelLease {
  prefix: string;
  secret: string;
}

/** A leased channel's id, parsed (`parseLeasedChannelId`). */
export interface LeasedChannelId {
  prefix: string;
  /** What the key is derived from (`leasedChannelBase`). */
  base: string;
  n: number;
  kind: LeasedChannelKind;
}

/** The largest number a lease can name (11 hex digits); a holder that reaches it asks for a new lease. */
export const MAX_LEASED_NUMBER = 16 ** 11 - 1;

/** A fresh lease prefix: 10 random bytes as the first four groups of a UUID. */
export function leasePrefix(random: Buffer): string {
  const hex = random.toString('hex', 0, 10);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}`;
}

/** What the access key of number `n`'s channels is derived from (both kinds share it). */
export function leasedChannelBase(prefix: string, n: number): string {
  return `${prefix}/${n}`;
}

/** The id of channel `kind` of number `n` under the lease `prefix`. */
export function leasedChannelId(prefix: string, n: number, kind: LeasedChannelKind): string {
  return `${prefix}-${kind === 'b' ? '0' : '1'}${n.toString(16).padStart(11, '0')}`;
}

const KEY_CHARS = 32; // 24 bytes of SHA-256 as base64url, the length of the keys of created channels

type OneShotHash = (algorithm: string, data: string, encoding: 'base64url') => string;
/** `crypto.hash` (node ≥ 20.12): one call, no Hash object (a third of `createHash`'s cost). */
const oneShot = (crypto as unknown as { hash?: OneShotHash }).hash;

/**
 * The access key of the leased channels named `<base>.<kind>`: SHA-256 of the secret and `base`, cut to 24 bytes.
 * The engine refuses any id that is not exactly `<prefix>.<digits>.<kind>`, and the digest is cut, so a key known
 * for one number gives nothing about another (no length extension).
 */
export function leasedChannelKey(secret: string, base: string): string {
  const input = `${secret}/${base}`;
  const digest = oneShot
    ? oneShot('sha256', input, 'base64url')
    : crypto.createHash('sha256').update(input).digest('base64url');
  return digest.slice(0, KEY_CHARS);
}

/** A lease prefix as `leasePrefix` makes it: the first four groups of a UUID, lower-case hex. */
const PREFIX = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}';
const LEASE_PREFIX = new RegExp(`^${PREFIX}$`);
const LEASED_ID = new RegExp(`^(${PREFIX})-([01])([0-9a-f]{11})$`);

/** `prefix` is in the form `leasePrefix` makes (so the ids named under it are hex digits and dashes). */
export function isLeasePrefix(prefix: unknown): prefix is string {
  return typeof prefix === 'string' && LEASE_PREFIX.test(prefix);
}

/** `id` as a leased channel's id; undefined when it is not one. */
export function parseLeasedChannelId(id: string): LeasedChannelId | undefined {
  const m = LEASED_ID.exec(id);
  if (m === null) return undefined;
  const prefix = m[1] as string;
  const n = parseInt(m[3] as string, 16);
  return { prefix, base: leasedChannelBase(prefix, n), n, kind: m[2] === '0' ? 'b' : 'r' };
}
