import type { IncomingMessage } from 'node:http';

/** What the `auth_function` is called with (docs/protocol.md §6). */
export interface StreamAuthInput {
  headers: Record<string, string>;
  path: string;
  query_params: Record<string, string[]>;
  addr: string;
}

const VISIBLE_ASCII = /^[\x20-\x7e\t]*$/;

/** Lowercase names; values that are not visible ASCII are dropped; for a repeated header the last value wins. */
function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] ?? '').toLowerCase();
    const value = raw[i + 1] ?? '';
    if (name === '' || !VISIBLE_ASCII.test(value)) continue;
    headers[name] = value;
  }
  return headers;
}

/** Split on `&` and the first `=`; no percent-decoding, `+` kept; empty keys skipped; every value is an array. */
export function parseQuery(query: string): Record<string, string[]> {
  const params: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const cut = pair.indexOf('=');
    const key = cut === -1 ? pair : pair.slice(0, cut);
    const value = cut === -1 ? '' : pair.slice(cut + 1);
    if (key === '') continue;
    (params[key] ??= []).push(value);
  }
  return { ...params };
}

function addressOf(req: IncomingMessage): string {
  const ip = req.socket.remoteAddress ?? '';
  const port = req.socket.remotePort ?? 0;
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

export function splitUrl(url: string | undefined): { path: string; query: string } {
  const target = url ?? '/';
  const cut = target.indexOf('?');
  return cut === -1 ? { path: target, query: '' } : { path: target.slice(0, cut), query: target.slice(cut + 1) };
}

export function buildAuthInput(req: IncomingMessage): StreamAuthInput {
  const { path, query } = splitUrl(req.url);
  return { headers: headersOf(req), path, query_params: parseQuery(query), addr: addressOf(req) };
}
