/**
 * Leased channels (svc extension, never needed by an iii-sdk client): `engine::channels::lease` gives the caller
 * a channel namespace, `{prefix, secret}`, tied to its connection. The caller then names channels itself, with no
 * engine call: channel `<prefix>.<n>.<kind>` (n a decimal number the caller never reuses) has the access key
 * `leasedChannelKey(secret, "<prefix>.<n>")`. The engine makes such a channel only when a socket first comes for
 * one of its ends, so a channel nobody opens costs the engine nothing. svc-http names the two channels of a request
 * this way: most handlers return a value and never open either.
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

/** A leased channel's id, parsed: undefined unless it is exactly `<prefix>.<n>.<b|r>`. */
export interface LeasedChannelId {
  prefix: string;
  /** `<prefix>.<n>`, what the key is derived from. */
  base: string;
  n: number;
  kind: LeasedChannelKind;
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

const LEASED_ID = /^([A-Za-z0-9_-]{8,64})\.(0|[1-9][0-9]{0,15})\.([br])$/;

export function parseLeasedChannelId(id: string): LeasedChannelId | undefined {
  const m = LEASED_ID.exec(id);
  if (m === null) return undefined;
  const n = Number(m[2]);
  if (!Number.isSafeInteger(n)) return undefined;
  return { prefix: m[1] as string, base: `${m[1]}.${m[2]}`, n, kind: m[3] as LeasedChannelKind };
}
