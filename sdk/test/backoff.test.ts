import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_RECONNECTION } from '../src/connection/backoff.js';

describe('reconnection backoff', () => {
  const noJitter = { ...DEFAULT_RECONNECTION, jitterFactor: 0 };

  it('grows by the multiplier from the initial delay and stops at the maximum', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 10].map((a) => backoffDelay(noJitter, a))).toEqual([
      1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000,
    ]);
  });

  it('applies plus or minus the jitter factor around the base delay', () => {
    expect(backoffDelay(DEFAULT_RECONNECTION, 1, () => 0)).toBe(1400); // 2000 - 30 %
    expect(backoffDelay(DEFAULT_RECONNECTION, 1, () => 0.5)).toBe(2000);
    expect(backoffDelay(DEFAULT_RECONNECTION, 1, () => 0.999999)).toBe(2600); // 2000 + 30 %
    for (let i = 0; i < 200; i++) {
      const d = backoffDelay(DEFAULT_RECONNECTION, 20);
      expect(d).toBeGreaterThanOrEqual(21000);
      expect(d).toBeLessThanOrEqual(39000);
    }
  });

  it('honours a custom configuration and never goes negative', () => {
    const cfg = { initialDelayMs: 50, maxDelayMs: 400, backoffMultiplier: 3, jitterFactor: 2, maxRetries: 5 };
    expect(backoffDelay({ ...cfg, jitterFactor: 0 }, 2)).toBe(400);
    expect(backoffDelay(cfg, 0, () => 0)).toBe(0);
  });
});
