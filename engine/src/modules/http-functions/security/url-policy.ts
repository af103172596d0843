/**
 * The URL part of the outbound policy (../README.md, "Where the policy is checked"): scheme, credentials in the URL,
 * `require_https`, the allowlist, and literal-IP hosts. Host names are checked again at connect time on the addresses
 * they resolve to (guarded-connector.ts); this file never resolves anything.
 *
 * Allowlist patterns: `*` allows every URL. Otherwise `[scheme://]host[:port][/path]`, where `*` in the host or
 * the path matches any run of characters. Host and scheme compare case-insensitively; an entry without a port
 * matches any port on that host (an explicit port pins it); without a path any path is allowed. A URL must match
 * one pattern.
 */
import { checkIp, isLocalHostname } from './ip-policy.js';
import { ModuleErrorCode } from '../../../error-codes.js';

export interface SecurityPolicy {
  url_allowlist: readonly string[];
  block_private_ips: boolean;
  require_https: boolean;
}

export class PolicyError extends Error {
  readonly code = ModuleErrorCode.UrlNotAllowed;
}

interface Pattern {
  source: string;
  scheme: string | undefined;
  host: RegExp;
  port: string | undefined;
  path: RegExp | undefined;
}

const PATTERN = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(\[[^\]]+\]|[^/:?#[\]]+)(?::(\d+|\*))?(\/[^?#]*)?$/i;
const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

export function compileAllowlist(patterns: readonly string[]): Pattern[] | 'any' {
  if (patterns.includes('*')) return 'any';
  return patterns.map((source) => {
    const m = PATTERN.exec(source.trim());
    if (!m) throw new Error(`url_allowlist entry '${source}' is not [scheme://]host[:port][/path]`);
    const [, scheme, host, port, path] = m;
    return {
      source,
      scheme: scheme ? `${scheme.toLowerCase()}:` : undefined,
      host: glob(stripDot((host as string).toLowerCase()), true),
      port,
      path: path && path !== '/' ? glob(path, false) : undefined,
    };
  });
}

function glob(text: string, ignoreCase: boolean): RegExp {
  const body = text
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`, ignoreCase ? 'i' : '');
}

function stripDot(host: string): string {
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

export class UrlPolicy {
  private readonly allow: Pattern[] | 'any';

  constructor(readonly policy: SecurityPolicy) {
    this.allow = compileAllowlist(policy.url_allowlist);
  }

  /** Parses and checks a URL; returns the parsed URL or throws PolicyError with the reason. */
  check(raw: string | URL): URL {
    let url: URL;
    try {
      url = typeof raw === 'string' ? new URL(raw) : raw;
    } catch {
      throw new PolicyError(`outbound URL '${String(raw)}' is not a valid absolute URL`);
    }
    const shown = `${url.protocol}//${url.host}${url.pathname}`;
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new PolicyError(`outbound URL ${shown} refused: scheme ${url.protocol} is not http or https`);
    }
    if (url.protocol === 'http:' && this.policy.require_https) {
      throw new PolicyError(`outbound URL ${shown} refused: require_https is on and the URL is http`);
    }
    if (url.username !== '' || url.password !== '') {
      throw new PolicyError(`outbound URL ${shown} refused: credentials in the URL are not allowed`);
    }
    if (!this.allowed(url)) {
      throw new PolicyError(`outbound URL ${shown} refused: it matches no url_allowlist entry`);
    }
    this.checkHost(url, shown);
    return url;
  }

  private checkHost(url: URL, shown: string): void {
    const host = url.hostname;
    if (host.startsWith('[') || /^[0-9.]+$/.test(host)) {
      const verdict = checkIp(host, this.policy.block_private_ips);
      if (!verdict.allowed) throw new PolicyError(`outbound URL ${shown} refused: ${verdict.reason}`);
      return;
    }
    if (this.policy.block_private_ips && isLocalHostname(host)) {
      throw new PolicyError(`outbound URL ${shown} refused: '${host}' is this machine (block_private_ips is on)`);
    }
  }

  private allowed(url: URL): boolean {
    if (this.allow === 'any') return true;
    const host = stripDot(url.hostname.toLowerCase());
    const port = url.port || DEFAULT_PORTS[url.protocol];
    return this.allow.some(
      (p) =>
        (p.scheme === undefined || p.scheme === url.protocol) &&
        p.host.test(host) &&
        (p.port === undefined || p.port === '*' || p.port === port) &&
        (p.path === undefined || p.path.test(url.pathname)),
    );
  }
}
