/**
 * Which IP addresses an outbound HTTP function may connect to. The check always runs on a canonical address
 * (what the WHATWG URL parser or the resolver produced), never on the text a user wrote: `2130706433`, `0x7f.1`,
 * `0177.0.0.1` and `127.1` are already `127.0.0.1` by then.
 *
 * With `block_private_ips` only globally routable unicast addresses pass: loopback, private (10/8, 172.16/12,
 * 192.168/16), link-local (169.254/16, fe80::/10, so cloud metadata too), carrier-grade NAT (100.64/10), unique
 * local (fc00::/7), and the reserved, documentation and translation ranges are refused. IPv4-mapped IPv6
 * (`::ffff:7f00:1`) is judged as the IPv4 address it carries. The unspecified addresses (`0.0.0.0`, `::`) and
 * multicast/broadcast are refused even without `block_private_ips`: they reach local listeners or no one.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export type IpVerdict = { allowed: true; address: string } | { allowed: false; reason: string };

const ALWAYS_BLOCKED = new Set(['unspecified', 'multicast', 'broadcast']);

/** `address` must be an IP literal (brackets allowed for IPv6). */
export function checkIp(address: string, blockPrivate: boolean): IpVerdict {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIP(bare) === 0) return { allowed: false, reason: `'${address}' is not an IP address` };
  let ip = ipaddr.parse(bare);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  const range = ip.range();
  if (ALWAYS_BLOCKED.has(range)) {
    return { allowed: false, reason: `address ${ip.toString()} is ${range} and never a valid destination` };
  }
  if (blockPrivate && range !== 'unicast') {
    return {
      allowed: false,
      reason: `address ${ip.toString()} is in a ${range} range (block_private_ips is on)`,
    };
  }
  return { allowed: true, address: ip.toString() };
}

/** Host names that always mean this machine, whatever a resolver says. */
export function isLocalHostname(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost') || h === 'localhost.localdomain';
}
