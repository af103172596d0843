import { describe, expect, it } from 'vitest';
import { Deadlines, type DeadlineEntry } from '../src/client/deadlines.js';

function entry(id: string): DeadlineEntry {
  return { id, deadline: 0, prev: undefined, next: undefined, list: undefined };
}

describe('call deadlines', () => {
  it('expires each call at its own deadline, across timeout values, and never a removed one', async () => {
    const expired: { id: string; at: number }[] = [];
    const t0 = performance.now();
    const d = new Deadlines((id) => expired.push({ id, at: performance.now() - t0 }));
    const a = entry('a');
    const b = entry('b');
    const c = entry('c');
    const gone = entry('gone');
    d.add(a, 120);
    d.add(gone, 60);
    d.add(b, 60);
    await new Promise((r) => setTimeout(r, 20));
    d.add(c, 60); // same list as b, later deadline
    d.remove(gone);
    await new Promise((r) => setTimeout(r, 250));
    expect(expired.map((e) => e.id)).toEqual(['b', 'c', 'a']);
    const at = Object.fromEntries(expired.map((e) => [e.id, e.at]));
    expect(at.b).toBeGreaterThanOrEqual(59);
    expect(at.c).toBeGreaterThanOrEqual(79);
    expect(at.a).toBeGreaterThanOrEqual(119);
    for (const e of expired) expect(e.at).toBeLessThan(200);
  });

  it('removed entries never expire, removal is idempotent, and the rest keep their order', async () => {
    const expired: string[] = [];
    const d = new Deadlines((id) => expired.push(id));
    const entries = Array.from({ length: 1000 }, (_, i) => entry(`e${i}`));
    for (const e of entries) d.add(e, 30);
    for (const e of entries) d.remove(e);
    d.remove(entries[0] as DeadlineEntry);
    await new Promise((r) => setTimeout(r, 60));
    expect(expired).toEqual([]);
    // Removing from the middle keeps the rest in order.
    const x = entries.slice(0, 3);
    for (const e of x) d.add(e, 20);
    d.remove(x[1] as DeadlineEntry);
    await new Promise((r) => setTimeout(r, 60));
    expect(expired).toEqual(['e0', 'e2']);
  });
});
