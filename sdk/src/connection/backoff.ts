/** Reconnection delays: `min(initial * multiplier^attempt, max)`, then plus or minus `jitterFactor` of it. */
import type { ReconnectionConfig } from '../types.js';

export const DEFAULT_RECONNECTION: ReconnectionConfig = {
  initialDelayMs: 1000,
  maxDelayMs: 30000,
  backoffMultiplier: 2,
  jitterFactor: 0.3,
  maxRetries: -1,
};

export function resolveReconnection(partial: Partial<ReconnectionConfig> | undefined): ReconnectionConfig {
  return { ...DEFAULT_RECONNECTION, ...definedOnly(partial ?? {}) };
}

/**
 * The delay before reconnection attempt `attempt` (0-based). `random` returns a number in [0, 1); it is a
 * parameter so the computation can be checked without randomness. Never negative.
 */
export function backoffDelay(config: ReconnectionConfig, attempt: number, random: () => number = Math.random): number {
  const base = Math.min(config.initialDelayMs * Math.pow(config.backoffMultiplier, attempt), config.maxDelayMs);
  const jitter = base * config.jitterFactor * (random() * 2 - 1);
  return Math.max(0, Math.round(base + jitter));
}

function definedOnly<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
