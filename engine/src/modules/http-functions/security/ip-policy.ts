/**
 * Which IP addresses an outbound HTTP function may connect to. The check always runs on a canonical address
 * (what the WHATWG URL parser or the resolver produced), never on the text a user wrote: `2130706433`, `0x7f.1`,
 * `0177.0.0.1` and `127.1` are already `127.0.0.1` by then.
 *
 * With `block_private_ips` only globally routable unicast addresses pass: loopback, private (10/8, 172.16/12,
 * 192.168/16), link-local (169.254/16, fe80::/10, so cloud metadata too), carrier-grade NAT (100.64/10), unique
 * local (fc00::/7), and the reserved and documentation ranges are refused. An IPv6 address that carries an IPv4 address
 * in a standard form (mapped, translated, compatible, NAT64, 6to4, Teredo: embedded-ipv4.ts) is judged by the IPv4
 * address it carries (by each of them, for Teredo). The unspecified addresses (`0.0.0.0`, `::`) and
 * multicast/broadcast are refused even without `block_private_ips`: they reach local listeners or no one.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { embeddedIpv4 } from './embedded-ipv4.js';

export type IpVerdict = { allowed: true; address: string } | { allowed: false; reason: string };

const ALWAYS_BLOCKED = new Set(['unspecified', 'multicast', 'broadcast']);

/** `address` must be an IP literal (brackets allowed for IPv6). */
export function checkIp(address: string, blockPrivate: boolean): IpVerdict {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIP(bare) === 0) return { allowed: false, reason: `'${address}' is not an IP address` };
  const ip = ipaddr.parse(bare);
  const carried = ip.kind() === 'ipv6' ? embeddedIpv4(ip as ipaddr.IPv6) : [];
  if (carried.length === 0) return judge(ip, ip.toString(), blockPrivate);
  for (const inner of carried) {
    const verdict = judge(inner, `${inner.toString()} (carried by ${ip.toString()})`, blockPrivate);
    if (!verdict.allowed) return verdict;
  }
  // a mapped address is dialed as the IPv4 address it is; the other forms go to the IPv6 address
  const mapped = (ip as ipaddr.IPv6).isIPv4MappedAddress();
  return { allowed: true, address: mapped ? (carried[0] as ipaddr.IPv4).toString() : ip.toString() };
}

function judge(ip: ipaddr.IPv4 | ipaddr.IPv6, shown: string, blockPrivate: boolean): IpVerdict {
  const range = ip.range();
  if (ALWAYS_BLOCKED.has(range)) {
    return { allowed: false, reason: `address ${shown} is ${range} and never a valid destination` };
  }
  if (blockPrivate && range !== 'unicast') {
    return { allowed: false, reason: `address ${shown} is in a ${range} range (block_private_ips is on)` };
  }
  return { allowed: true, address: ip.toString() };
}

/** Host names that always mean this machine, whatever a resolver says. */
export function isLocalHostname(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost') || h === 'localhost.localdomain';
}
