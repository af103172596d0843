/**
 * InFlightMap and InFlightSet: a Map and a Set whose entries move to a new one every 4096 deletions, so that
 * V8's replaced hash tables stay in the young generation (sdk/src/in-flight.ts). They answer as a Map and a Set
 * do across the moves; and a process churning one of them promotes next to nothing per young-generation collection,
 * where a plain Map whose table reached the old generation promotes the calls its replaced tables still point at.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { IN_FLIGHT_RENEW_AFTER, InFlightMap, InFlightSet } from '../src/in-flight.js';

describe('InFlightMap', () => {
  it('answers as a Map does across its moves to a new Map', () => {
    const map = new InFlightMap<string, number>();
    const model = new Map<string, number>();
    let next = 0;
    // enough churn for several moves, with entries that stay across them
    for (let round = 0; round < 3 * IN_FLIGHT_RENEW_AFTER; round++) {
      const key = `k${next++}`;
      map.set(key, round);
      model.set(key, round);
      if (round % 5 !== 0) {
        const victim = `k${next - 1 - (round % 3)}`;
        expect(map.delete(victim)).toBe(model.delete(victim));
      }
    }
    expect(map.delete('never-set')).toBe(false);
    expect(map.size).toBe(model.size);
    expect([...map]).toEqual([...model]);
    expect([...map.keys()]).toEqual([...model.keys()]);
    expect([...map.values()]).toEqual([...model.values()]);
    for (const [k, v] of model) {
      expect(map.has(k)).toBe(true);
      expect(map.get(k)).toBe(v);
    }
    map.clear();
    expect(map.size).toBe(0);
    expect(map.get('k0')).toBeUndefined();
  });
});

describe('InFlightSet', () => {
  it('answers as a Set does across its moves to a new Set', () => {
    const set = new InFlightSet<object>();
    const model = new Set<object>();
    const live: object[] = [];
    for (let round = 0; round < 3 * IN_FLIGHT_RENEW_AFTER; round++) {
      const o = { round };
      set.add(o);
      model.add(o);
      live.push(o);
      if (round % 4 !== 0) {
        const victim = live.splice(round % live.length, 1)[0]!;
        expect(set.delete(victim)).toBe(model.delete(victim));
        expect(set.delete(victim)).toBe(false);
      }
    }
    expect(set.size).toBe(model.size);
    expect([...set]).toEqual([...model]);
    expect([...set.values()]).toEqual([...model.values()]);
    for (const o of live) expect(set.has(o)).toBe(true);
    set.clear();
    expect(set.size).toBe(0);
  });
});

/**
 * A child process (node --trace-gc-nvp) that gets the collection's hash table into the old generation (entries
 * set, then a pause with garbage and no churn), then churns it in waves of 256 calls; prints the bytes promoted per
 * young-generation collection during the churn.
 */
function promotedPerScavenge(kind: 'Map' | 'InFlightMap'): number {
  const module = pathToFileURL(join(__dirname, '../dist/in-flight.js')).href;
  const script = `
    const { InFlightMap } = await import(${JSON.stringify(module)});
    const calls = ${kind === 'Map' ? 'new Map()' : 'new InFlightMap()'};
    for (let i = 0; i < 100; i++) calls.set('seed' + i, i);
    for (let i = 0; i < 2e6; i++) JSON.stringify({ i });
    for (let i = 0; i < 100; i++) calls.delete('seed' + i);
    console.log('churn');
    for (let wave = 0; wave < 3000; wave++) {
      const ids = [];
      for (let k = 0; k < 256; k++) {
        const id = 'call-' + wave + '-' + k;
        ids.push(id);
        calls.set(id, { id, payload: { text: 'x'.repeat(100) + k }, list: new Array(16).fill(k) });
        JSON.stringify({ wave, k });
      }
      for (const id of ids) calls.delete(id);
    }
  `;
  const run = spawnSync(process.execPath, ['--trace-gc-nvp', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  expect(run.status).toBe(0);
  const churn = run.stdout.slice(run.stdout.indexOf('churn'));
  const promoted = [...churn.matchAll(/ gc=s .*? promoted=(\d+)/g)].map((m) => Number(m[1]));
  expect(promoted.length).toBeGreaterThan(10);
  return promoted.reduce((a, b) => a + b, 0) / promoted.length;
}

describe('churned under load', () => {
  it('keeps what a call allocated young, where a Map with an old table promotes it', () => {
    const plain = promotedPerScavenge('Map');
    const inFlight = promotedPerScavenge('InFlightMap');
    // a plain Map: most of a megabyte per collection; ours: the odd few kilobytes
    expect(plain).toBeGreaterThan(256 * 1024);
    expect(inFlight).toBeLessThan(plain / 10);
  }, 60_000);
});
