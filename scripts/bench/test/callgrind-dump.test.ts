import { describe, expect, it } from 'vitest';
import { collectorCost, kindOf, nameAt, readPerfMap, selfCosts } from '../lib/callgrind-dump.mjs';

// a dump as callgrind writes one with --dump-instr=no: names compressed to "(id)" after their first use, and the
// cost line after "calls=" being the call's inclusive cost
const DUMP = `version: 1
creator: callgrind-3.19.0
positions: line
events: Ir
summary: 1860

ob=(1) /usr/bin/node
fl=(1) ???
fn=(1) Builtins_LoadIC
0 100
fn=(2) 0x00000000000010a0
0 40
cfn=(1)
calls=3 0
0 1000
+2 60
ob=(2) /usr/lib/x86_64-linux-gnu/libc.so.6
fn=(3) _int_malloc
* 500
ob=(1)
fn=(1)
0 160
fn=(4) 0x0000000000009000
0 1000
`;

describe('self costs of a callgrind dump', () => {
  const map = readPerfMap('1000 200 JS:*route file:///srv/engine/dist/core/router.js:178:10\n2000 10 Builtin:Foo\n');

  it('finds the code object that holds an address', () => {
    expect(nameAt(map, 0x1000)).toMatch(/route/);
    expect(nameAt(map, 0x11ff)).toMatch(/route/);
    expect(nameAt(map, 0x1200)).toBeUndefined();
    expect(nameAt(map, 0x0fff)).toBeUndefined();
  });

  it('adds up each function’s own lines, not the inclusive cost of its calls, and names JIT code from the map', () => {
    const { costs, total } = selfCosts(DUMP, map);
    expect(costs.get('Builtins_LoadIC [node]')).toBe(260);
    expect(costs.get('JS:*route file:///srv/engine/dist/core/router.js:178:10')).toBe(100);
    expect(costs.get('_int_malloc [libc.so.6]')).toBe(500);
    expect(costs.get('(JIT code not in the perf map)')).toBe(1000);
    expect(total).toBe(1860);
  });

  it('sorts functions into kinds of work', () => {
    expect(kindOf('JS:*route file:///srv/engine/dist/core/router.js:178:10')).toBe('svc engine (JavaScript)');
    expect(kindOf('JS:*startLoop /srv/node_modules/ws/lib/receiver.js:172:12')).toBe('ws (JavaScript)');
    expect(kindOf('v8::internal::JsonParser<unsigned char>::ScanJsonString(bool) [node]')).toBe('JSON.parse (V8)');
    expect(kindOf('Builtins_LoadIC [node]')).toBe('V8 builtins (inline caches, typed arrays, calls)');
    expect(kindOf('_int_malloc [libc.so.6]')).toBe('libc (malloc, memcpy, system call wrappers)');
  });
});

describe("the garbage collector's share of a dump", () => {
  it("adds up the self cost of V8's collector functions only, not what they call", () => {
    const dump = `events: Ir
ob=(1) /usr/bin/node
fl=(1) ???
fn=(1) v8::internal::ScavengerCollector::CollectGarbage()
0 300
cfn=(2) v8::internal::JsonParser<unsigned char>::ScanJsonString(bool)
calls=1 0
0 5000
fn=(3) v8::internal::Heap::Scavenge()
0 40
fn=(2)
0 5000
fn=(4) Builtins_LoadIC
0 700
`;
    expect(collectorCost(dump)).toBe(340);
    expect(collectorCost(DUMP)).toBe(0);
  });
});
