/** The parts of an upgrade request a listener's gate judges a connection by (the auth function's input). */
import type { IncomingMessage } from 'node:http';
import type { UpgradeInfo } from './listener-gate.js';

export function upgradeInfo(req: IncomingMessage): UpgradeInfo {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const queryParams: Record<string, string[]> = {};
  const url = new URL(req.url ?? '/', 'http://engine.invalid');
  for (const [name, value] of url.searchParams) (queryParams[name] ??= []).push(value);
  return { headers, queryParams, ipAddress: req.socket.remoteAddress ?? '' };
}
