/**
 * `engine::baggage::get|set|get_all` (docs/compatibility.md, "Functions (`engine::*`)"): read the W3C baggage the call
 * arrived with. `set` answers the baggage with the entry added, for the caller to send on; like the original it changes
 * nothing anywhere else (baggage travels with calls, not in the engine).
 */
import type { HandlerContext } from '@svc/sdk';
import { asArgs, invalid, optString } from './args.js';

/** `k1=v1;prop, k2=v2` → `{k1: 'v1', k2: 'v2'}` (properties dropped, values percent-decoded). */
export function parseBaggage(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (header === undefined) return out;
  for (const member of header.split(',')) {
    const [pair] = member.split(';');
    const eq = pair?.indexOf('=') ?? -1;
    if (pair === undefined || eq <= 0) continue;
    const key = pair.slice(0, eq).trim();
    try {
      out[key] = decodeURIComponent(pair.slice(eq + 1).trim());
    } catch {
      out[key] = pair.slice(eq + 1).trim();
    }
  }
  return out;
}

export function formatBaggage(entries: Record<string, string>): string {
  return Object.entries(entries)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join(',');
}

export function baggageGet(payload: unknown, ctx: HandlerContext): { value: string | null } {
  const key = optString(asArgs(payload, 'engine::baggage::get'), 'key', 'engine::baggage::get');
  if (!key) throw invalid('engine::baggage::get', '"key" is required (a non-empty string)');
  return { value: parseBaggage(ctx.baggage)[key] ?? null };
}

export function baggageGetAll(_payload: unknown, ctx: HandlerContext): { baggage: Record<string, string> } {
  return { baggage: parseBaggage(ctx.baggage) };
}

export function baggageSet(payload: unknown, ctx: HandlerContext): { success: true; baggage: string; note: string } {
  const fn = 'engine::baggage::set';
  const args = asArgs(payload, fn);
  const key = optString(args, 'key', fn);
  const value = optString(args, 'value', fn);
  if (!key) throw invalid(fn, '"key" is required (a non-empty string)');
  if (value === undefined) throw invalid(fn, '"value" is required (a string)');
  return {
    success: true,
    baggage: formatBaggage({ ...parseBaggage(ctx.baggage), [key]: value }),
    note: 'Baggage travels with calls: send the returned baggage with your next call to propagate it.',
  };
}
