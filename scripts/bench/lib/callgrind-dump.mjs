// Self cost per function in a callgrind dump (instructions, `Ir`), with the names of JIT-compiled code read from a
// perf map (`node --perf-basic-prof` writes /tmp/perf-<pid>.map: start, size and name of every code object V8
// made, in hex), and the same costs summed by kind of work. For scripts/bench/callgrind-summary.mjs, and for the
// collector's share of each window of scripts/bench/instructions.mjs.
import { readFileSync } from 'node:fs';

/** The code objects of a perf map, sorted by start address, for `nameAt`. */
export function readPerfMap(text) {
  const entries = [];
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) (.+)$/i.exec(line);
    if (m) entries.push({ start: parseInt(m[1], 16), size: parseInt(m[2], 16), name: m[3] });
  }
  return entries.sort((a, b) => a.start - b.start);
}

/** The name of the code object holding `address`, or undefined. */
export function nameAt(entries, address) {
  let lo = 0;
  let hi = entries.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (entries[mid].start <= address) lo = mid + 1;
    else hi = mid - 1;
  }
  const e = entries[hi];
  return e !== undefined && address < e.start + e.size ? e.name : undefined;
}

/**
 * Self cost per function of a callgrind dump's text (the last number of each cost line; the cost line after a
 * `calls=` line is the call's inclusive cost and is not counted), names resolved through `perfMap` where callgrind
 * has only an address, each suffixed with its object file. Returns the map and the total.
 */
export function selfCosts(text, perfMap = []) {
  const fnNames = new Map();
  const obNames = new Map();
  const costs = new Map();
  let fn = '?';
  let ob = '';
  let afterCalls = false;
  let total = 0;
  const resolve = (name) => {
    const m = /^0x([0-9a-f]+)(?:'\d+)?$/i.exec(name);
    if (m === null) return `${name} [${ob.split('/').pop()}]`;
    return nameAt(perfMap, parseInt(m[1], 16)) ?? '(JIT code not in the perf map)';
  };
  for (const line of text.split('\n')) {
    const named = /^(c?fn|c?ob)=\((\d+)\)(?: (.*))?$/.exec(line);
    if (named) {
      const [, key, id, name] = named;
      const names = key.endsWith('fn') ? fnNames : obNames;
      if (name !== undefined) names.set(id, name);
      if (key === 'fn') fn = resolve(fnNames.get(id) ?? id);
      else if (key === 'ob') ob = obNames.get(id) ?? id;
      continue;
    }
    if (line.startsWith('calls=')) {
      afterCalls = true;
      continue;
    }
    if (!/^(0x[0-9a-f]+|[+-]?\d+|\*)\s/i.test(line)) continue;
    if (afterCalls) {
      afterCalls = false;
      continue;
    }
    const cost = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (!Number.isFinite(cost)) continue;
    costs.set(fn, (costs.get(fn) ?? 0) + cost);
    total += cost;
  }
  return { costs, total };
}

const GC_KIND = 'garbage collection (V8)';

const KINDS = [
  ['JSON.parse (V8)', (n) => n.includes('JsonParser')],
  ['JSON.stringify (V8)', (n) => n.includes('JsonStringifier')],
  ['ws (JavaScript)', (n) => n.includes('node_modules/ws/')],
  ['svc engine (JavaScript)', (n) => n.includes('/engine/dist/')],
  ['svc SDK (JavaScript)', (n) => n.includes('/sdk/dist/')],
  ['other packages (JavaScript)', (n) => n.includes('node_modules/')],
  ['Node.js (JavaScript: streams, timers, net)', (n) => n.startsWith('JS:') && n.includes('node:')],
  [
    GC_KIND,
    (n) =>
      /Scaveng|IterateObjectCache|Heap::|MarkCompact|Evacuat|Sweep|Marking|GCTracer|Safepoint|MemoryChunk|SemiSpace|Remembered|SlotSet/.test(
        n,
      ),
  ],
  ['V8 builtins (inline caches, typed arrays, calls)', (n) => n.startsWith('Builtins_') || n.startsWith('Builtin:')],
  ['other JavaScript', (n) => n.startsWith('JS:')],
  ['V8 runtime (C++)', (n) => n.includes('v8::')],
  ['Node.js (C++)', (n) => n.includes('node::')],
  ['libuv', (n) => /^uv_/.test(n)],
  ['libc (malloc, memcpy, system call wrappers)', (n) => n.includes('[libc')],
];

/** The kind of work a function's name says it is. */
export function kindOf(name) {
  for (const [kind, test] of KINDS) if (test(name)) return kind;
  return 'other';
}

/**
 * The instructions a dump's text spent in V8's garbage collector's own functions (their self cost, the kind
 * `garbage collection (V8)`): where a window's count jumps, this says whether a collection fell inside it.
 */
export function collectorCost(text) {
  let cost = 0;
  for (const [name, c] of selfCosts(text).costs) if (kindOf(name) === GC_KIND) cost += c;
  return cost;
}

/** Self costs of a dump file, by function and by kind of work, each sorted by cost. */
export function summariseDump(file, perfMapFile) {
  const perfMap = perfMapFile ? readPerfMap(readFileSync(perfMapFile, 'utf8')) : [];
  const { costs, total } = selfCosts(readFileSync(file, 'utf8'), perfMap);
  const kinds = new Map();
  for (const [name, cost] of costs) kinds.set(kindOf(name), (kinds.get(kindOf(name)) ?? 0) + cost);
  const sorted = (m) => [...m].sort((a, b) => b[1] - a[1]);
  return { total, functions: sorted(costs), kinds: sorted(kinds) };
}
