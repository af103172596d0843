/**
 * Which engine a command talks to, resolved the way the SDK does it: `--address` (a host or a full ws:// URL)
 * and `--port` win; else `SVC_URL`; else `SVC_PORT` on localhost; else ws://localhost:49134.
 */
import { DEFAULT_ENGINE_PORT } from '@svc/sdk/core';
import { intFlag, stringFlag, type ParsedArgs } from './args.js';
import { UsageError } from './exit-codes.js';

/** Flags every command that talks to an engine accepts. */
export const TARGET_FLAGS = {
  address: { value: true },
  port: { value: true },
} as const;

export function engineUrl(flags: ParsedArgs['flags'], env: NodeJS.ProcessEnv = process.env): string {
  const address = stringFlag(flags, 'address');
  const port = intFlag(flags, 'port', 1, 65535);
  const fromEnv = env['SVC_URL'] || undefined; // an empty SVC_URL counts as unset, as in the SDK
  const base = address ?? fromEnv;
  if (base !== undefined && /^wss?:\/\//.test(base)) return withPort(base, port);
  const host = base ?? 'localhost';
  return `ws://${host}:${port ?? envPort(env) ?? DEFAULT_ENGINE_PORT}`;
}

function withPort(url: string, port: number | undefined): string {
  if (port === undefined) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`not a WebSocket URL: "${url}"`);
  }
  parsed.port = String(port);
  return parsed.toString().replace(/\/$/, '');
}

function envPort(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env['SVC_PORT'];
  if (raw === undefined || raw === '') return undefined;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < 1 || Number(raw) > 65535) {
    throw new UsageError(`SVC_PORT must be a port number (1-65535), got "${raw}"`);
  }
  return Number(raw);
}
