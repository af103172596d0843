/**
 * The core's invocation deadlines (one timer for all of them): never early, at most a bucket late, in deadline
 * order, nothing left armed once every item has ended, and an expiry handler may end or add items.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Deadlines } from '../src/core/deadlines.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const BUILT = fileURLToPath(new URL('../dist/core/deadlines.js', import.meta.url));

describe('Deadlines', () => {
  it('expires each item after its delay, never before it, in deadline order', async () => {
    const expired: { name: string; at: number }[] = [];
    const deadlines = new Deadlines<string>((name) => expired.push({ name, at: performance.now() }));
    const start = performance.now();
    deadlines.add('c', 60);
    deadlines.add('a', 20);
    deadlines.add('b', 40);
    deadlines.add('a2', 21);
    await sleep(150);
    expect(expired.map((e) => e.name)).toEqual(['a', 'a2', 'b', 'c']);
    const after = Object.fromEntries(expired.map((e) => [e.name, e.at - start]));
    expect(after.a).toBeGreaterThanOrEqual(20);
    expect(after.b).toBeGreaterThanOrEqual(40);
    expect(after.c).toBeGreaterThanOrEqual(60);
    expect(deadlines.size).toBe(0);
  });

  it('an item deleted in time never expires', async () => {
    const expired: number[] = [];
    const deadlines = new Deadlines<number>((n) => expired.push(n));
    const keys = [1, 2, 3].map((n) => deadlines.add(n, 30 * n));
    deadlines.delete(2, keys[1]!);
    deadlines.delete(1, keys[0]!);
    deadlines.delete(1, keys[0]!); // twice: nothing
    await sleep(120);
    expect(expired).toEqual([3]);
    expect(deadlines.size).toBe(0);
  });

  it('keeps no timer once every item has ended: a process holding only ended deadlines exits at once', () => {
    // (the built module: run `npm run build` first, as the test script does)
    const script = `
      const { Deadlines } = await import(${JSON.stringify(BUILT)});
      const d = new Deadlines(() => console.log('expired'));
      const keys = [1, 2, 3].map((n) => d.add(n, 10_000 * n));
      keys.forEach((key, i) => d.delete(i + 1, key));
      d.delete(4, d.add(4, 5_000));
    `;
    const started = Date.now();
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 8000 });
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('');
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('an expiry may end items due with it and add new ones', async () => {
    const expired: string[] = [];
    const keys = new Map<string, number>();
    const deadlines: Deadlines<string> = new Deadlines<string>((name) => {
      expired.push(name);
      if (name === 'first') {
        deadlines.delete('second', keys.get('second')!);
        keys.set('later', deadlines.add('later', 20));
      }
    });
    keys.set('first', deadlines.add('first', 10));
    keys.set('second', deadlines.add('second', 10));
    await sleep(80);
    expect(expired).toEqual(['first', 'later']);
    expect(deadlines.size).toBe(0);
  });

  it('holds a deadline longer than a Node timer can wait without firing it early', () => {
    const expired: string[] = [];
    const deadlines = new Deadlines<string>((name) => expired.push(name));
    const key = deadlines.add('far', 3 * 2_147_483_647);
    expect(expired).toEqual([]);
    deadlines.delete('far', key);
    expect(deadlines.size).toBe(0);
  });
});
