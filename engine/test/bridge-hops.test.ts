/** The bridge's crossing count in W3C baggage: read, set, and other baggage members kept. */
import { describe, expect, it } from 'vitest';
import { HOPS_BAGGAGE_KEY, readHops, withHops } from '../src/modules/bridge-client/hops.js';

describe('bridge hops in baggage', () => {
  it('reads 0 from absent, empty or unreadable baggage', () => {
    expect(readHops(undefined)).toBe(0);
    expect(readHops('')).toBe(0);
    expect(readHops(`${HOPS_BAGGAGE_KEY}=lots`)).toBe(0);
    expect(readHops(`${HOPS_BAGGAGE_KEY}=-2`)).toBe(0);
  });

  it('reads the count among other members and properties', () => {
    expect(readHops(`userId=7, ${HOPS_BAGGAGE_KEY} = 3;prop=x,tenant=a`)).toBe(3);
  });

  it('sets the count, keeping every other member', () => {
    expect(withHops(undefined, 1)).toBe(`${HOPS_BAGGAGE_KEY}=1`);
    const next = withHops(`userId=7,${HOPS_BAGGAGE_KEY}=3,tenant=a`, 4);
    expect(next).toBe(`userId=7,tenant=a,${HOPS_BAGGAGE_KEY}=4`);
    expect(readHops(next)).toBe(4);
  });
});
