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

  it('lets go of the list of a timeout value once its calls are done and its timer has fired', async () => {
    const expired: string[] = [];
    const d = new Deadlines((id) => expired.push(id));
    // a caller choosing its own timeout per call (the engine takes `timeout_ms` from each frame)
    const entries = Array.from({ length: 200 }, (_, i) => entry(`t${i}`));
    entries.forEach((e, i) => d.add(e, 10 + i));
    for (const e of entries.slice(100)) d.remove(e);
    expect(d.listCount).toBe(200);
    await new Promise((r) => setTimeout(r, 400));
    expect(expired.sort()).toEqual(
      entries
        .slice(0, 100)
        .map((e) => e.id)
        .sort(),
    );
    expect(d.listCount).toBe(0);
    d.add(entry('again'), 10); // a value seen before gets a new list
    await new Promise((r) => setTimeout(r, 60));
    expect(expired.at(-1)).toBe('again');
    expect(d.listCount).toBe(0);
  });
});
