/**
 * IPv4 addresses carried inside an IPv6 address by the standard transition forms. An outbound connection to such
 * an address may end at the IPv4 address it carries (a translator, a relay, or the host's own dual stack), so the
 * policy judges it by that address: `[::ffff:127.0.0.1]` is loopback, `[64:ff9b::8.8.8.8]` is public.
 *
 * | form | prefix | where the IPv4 address is |
 * |---|---|---|
 * | IPv4-mapped | `::ffff:0:0/96` | last 32 bits |
 * | IPv4-translated (SIIT) | `::ffff:0:0:0/96` | last 32 bits |
 * | IPv4-compatible (deprecated) | `::/96`, except `::` and `::1` | last 32 bits |
 * | NAT64 well-known prefix | `64:ff9b::/96` | last 32 bits |
 * | 6to4 | `2002::/16` | bits 16–47 |
 * | Teredo | `2001::/32` | server: bits 32–63; client: last 32 bits, inverted |
 */
import ipaddr from 'ipaddr.js';

type Words = number[];

function v4(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function zeros(words: Words, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (words[i] !== 0) return false;
  return true;
}

/** The IPv4 addresses `ip` carries (none for a plain IPv6 address). */
export function embeddedIpv4(ip: ipaddr.IPv6): ipaddr.IPv4[] {
  const w = ip.parts;
  const last = (): ipaddr.IPv4 => v4(w[6]!, w[7]!);
  if (zeros(w, 0, 5) && w[5] === 0xffff) return [last()]; // mapped
  if (zeros(w, 0, 4) && w[4] === 0xffff && w[5] === 0) return [last()]; // translated
  if (zeros(w, 0, 6) && !(w[6] === 0 && (w[7] === 0 || w[7] === 1))) return [last()]; // compatible
  if (w[0] === 0x64 && w[1] === 0xff9b && zeros(w, 2, 6)) return [last()]; // NAT64
  if (w[0] === 0x2002) return [v4(w[1]!, w[2]!)]; // 6to4
  if (w[0] === 0x2001 && w[1] === 0) {
    return [v4(w[2]!, w[3]!), v4(w[6]! ^ 0xffff, w[7]! ^ 0xffff)]; // Teredo server, client
  }
  return [];
}
