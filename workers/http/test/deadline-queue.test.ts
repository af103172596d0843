import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeadlineQueue, type Due } from '../src/server/deadline-queue.js';

function entry(deadline: number, expired: string[], name: string): Due {
  return {
    deadline,
    prevDue: undefined,
    nextDue: undefined,
    queued: false,
    expire: () => expired.push(name),
  };
}

describe('DeadlineQueue', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(1_000_000);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('expires entries in order at their deadlines, skipping removed ones', () => {
    const q = new DeadlineQueue();
    const expired: string[] = [];
    const now = Date.now();
    const a = entry(now + 100, expired, 'a');
    const b = entry(now + 150, expired, 'b');
    const c = entry(now + 200, expired, 'c');
    q.add(a);
    q.add(b);
    q.add(c);
    q.remove(a); // the head goes: the armed timer fires early, finds nothing due, re-arms for b
    vi.advanceTimersByTime(120);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(40);
    expect(expired).toEqual(['b']);
    expect(b.queued).toBe(false);
    vi.advanceTimersByTime(50);
    expect(expired).toEqual(['b', 'c']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('leaves no timer behind once every entry is removed, and arms again on the next add', () => {
    const q = new DeadlineQueue();
    const expired: string[] = [];
    const a = entry(Date.now() + 100, expired, 'a');
    q.add(a);
    expect(vi.getTimerCount()).toBe(1);
    q.remove(a);
    q.remove(a); // idempotent
    expect(vi.getTimerCount()).toBe(0);
    const b = entry(Date.now() + 50, expired, 'b');
    q.add(b);
    vi.advanceTimersByTime(60);
    expect(expired).toEqual(['b']);
  });

  it('still expires later entries when an expiry throws', () => {
    const q = new DeadlineQueue();
    const expired: string[] = [];
    const bad: Due = {
      ...entry(Date.now() + 10, expired, 'bad'),
      expire: () => {
        throw new Error('boom');
      },
    };
    q.add(bad);
    q.add(entry(Date.now() + 30, expired, 'later'));
    expect(() => vi.advanceTimersByTime(15)).toThrow('boom');
    vi.advanceTimersByTime(30);
    expect(expired).toEqual(['later']);
  });
});
