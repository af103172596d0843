/**
 * Loop protection for bridged calls. Every time a call crosses a bridge (a forward leaving this engine, an exposed
 * function entered from the remote one) the crossing count in the call's W3C baggage (`svc.bridge.hops`) goes up
 * by one; a call that would cross more than `MAX_BRIDGE_HOPS` times is refused with `bridge_hop_limit`. Baggage
 * travels with the trace context through the engine and through handlers that call onward with `context.trigger`,
 * so a route A → B → A → … stops after a bounded number of messages.
 */

export const HOPS_BAGGAGE_KEY = 'svc.bridge.hops';
export const MAX_BRIDGE_HOPS = 8;

/** The crossing count carried by `baggage` (0 when absent or unreadable). */
export function readHops(baggage: string | undefined): number {
  if (baggage === undefined) return 0;
  for (const member of baggage.split(',')) {
    const [pair] = member.split(';');
    const eq = pair?.indexOf('=') ?? -1;
    if (pair === undefined || eq < 0 || pair.slice(0, eq).trim() !== HOPS_BAGGAGE_KEY) continue;
    const n = Number(pair.slice(eq + 1).trim());
    return Number.isInteger(n) && n >= 0 ? n : 0;
  }
  return 0;
}

/** `baggage` with the crossing count set to `hops` (other members kept as they are). */
export function withHops(baggage: string | undefined, hops: number): string {
  const others = (baggage ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter((m) => m !== '' && m.split('=')[0]?.trim() !== HOPS_BAGGAGE_KEY);
  return [...others, `${HOPS_BAGGAGE_KEY}=${hops}`].join(',');
}
