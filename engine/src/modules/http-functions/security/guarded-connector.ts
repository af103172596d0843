/**
 * The connect step of every outbound HTTP-function request: resolve the host, check every address it resolves
 * to, and open the socket to the checked address only. Because this runs inside undici's connect path, it also
 * covers literal IPs (which a `lookup` hook never sees), every redirect hop, and DNS answers that change between
 * a check and the connect (rebinding): the address connected to is the address that was checked.
 *
 * A host that resolves to several addresses is refused when any of them is blocked (we do not pick the "good"
 * one: a name that points into a private range is treated as hostile).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import tls from 'node:tls';
import { buildConnector } from 'undici';
import { checkIp, isLocalHostname } from './ip-policy.js';
import { PolicyError } from './url-policy.js';

export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export interface GuardOptions {
  blockPrivateIps: boolean;
  connectTimeoutMs: number;
  resolver?: Resolver;
  /**
   * Tests only: where to dial once an address passed the check (e.g. a public address the test resolver handed
   * out → the loopback listener standing in for it). The check itself is unchanged. Not reachable from config.
   */
  dialAddress?: (checked: string) => string;
  /** Extra trusted CA certificates (PEM) for https upstreams, in addition to the system's. */
  ca?: string[];
}

/** Picks the address to connect to, or throws PolicyError naming the blocked address. */
export async function resolveChecked(hostname: string, opts: GuardOptions): Promise<string> {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (opts.blockPrivateIps && isLocalHostname(host)) {
    throw new PolicyError(`connection to '${host}' refused: it is this machine (block_private_ips is on)`);
  }
  const addresses = isIP(host) !== 0 ? [host] : await (opts.resolver ?? systemResolver)(host);
  if (addresses.length === 0) throw new PolicyError(`connection to '${host}' refused: it resolves to no address`);
  let chosen: string | undefined;
  for (const address of addresses) {
    const verdict = checkIp(address, opts.blockPrivateIps);
    if (!verdict.allowed) throw new PolicyError(`connection to '${host}' refused: ${verdict.reason}`);
    chosen ??= address;
  }
  return chosen as string;
}

/** An undici `connect` function that applies resolveChecked before every new connection. */
export function guardedConnector(opts: GuardOptions): buildConnector.connector {
  const connect = buildConnector({
    timeout: opts.connectTimeoutMs,
    ...(opts.ca ? { ca: [...tls.rootCertificates, ...opts.ca] } : {}),
  });
  return (options, callback) => {
    resolveChecked(options.hostname, opts).then(
      (address) => {
        const bareHost = options.hostname.replace(/^\[|\]$/g, '');
        // TLS still verifies the certificate against the name the user asked for (SNI + hostname check).
        const servername = options.servername || (isIP(bareHost) === 0 ? bareHost : undefined);
        connect(
          {
            ...options,
            hostname: opts.dialAddress ? opts.dialAddress(address) : address,
            ...(servername ? { servername } : {}),
          },
          callback,
        );
      },
      (err: unknown) => callback(err as Error, null),
    );
  };
}
