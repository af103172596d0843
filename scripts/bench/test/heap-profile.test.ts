import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { allocatedBytes, allocationSites, readProfile, type HeapProfileNode } from '../lib/heap-profile.mjs';
import { lineReader } from './child-lines.js';

const SAMPLER = join(import.meta.dirname, '../lib/heap-sampler.mjs');

let nextId = 1;
function node(functionName: string, url: string, selfSize: number, children: HeapProfileNode[] = []): HeapProfileNode {
  return {
    callFrame: { functionName, url, lineNumber: 9, columnNumber: 0, scriptId: '1' },
    selfSize,
    id: nextId++,
    children,
  };
}

describe("the bench's reading of a sampled heap profile", () => {
  // (root) → onMessage → decode (300 B), onMessage → parse (100 B); (root) → flush → decode (50 B); (root) 7 B
  const profile = {
    head: node('(root)', '', 7, [
      node('onMessage', 'file:///x/transport/ws.js', 0, [
        node('decode', 'file:///x/sdk/codec.js', 300),
        node('parse', '', 100),
      ]),
      node('flush', 'file:///x/transport/writer.js', 0, [node('decode', 'file:///x/sdk/codec.js', 50)]),
    ]),
  };

  it('adds every node of the tree', () => {
    expect(allocatedBytes(profile)).toBe(457);
  });

  it('names a site by its innermost frames, so one function reached two ways is two sites', () => {
    expect(allocationSites(profile, 2)).toEqual([
      ['onMessage transport/ws.js:10 > decode sdk/codec.js:10', 300],
      ['onMessage transport/ws.js:10 > parse', 100],
      ['flush transport/writer.js:10 > decode sdk/codec.js:10', 50],
      ['(root)', 7],
    ]);
    // by its innermost function alone, both add up
    expect(allocationSites(profile, 1)[0]).toEqual(['decode sdk/codec.js:10', 350]);
  });
});

const dir = mkdtempSync(join(tmpdir(), 'svc-heap-sampler-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a window of the heap sampler in a real process', () => {
  it('counts what the window allocated, objects already collected included, and names where', async () => {
    // each line on stdin: allocate that many arrays of 1,000 small integers (8 KB each), dropped at once
    const program =
      "globalThis.keep = 0; process.stdin.on('data', (d) => { for (let i = 0; i < Number(d); i++) " +
      "globalThis.keep += fill(i).length; process.stdout.write('done\\n'); });" +
      'function fill(i) { return new Array(1000).fill(i); }' +
      "process.stdout.write('ready\\n');";
    const child = spawn(process.execPath, ['--import', SAMPLER, '-e', program], {
      env: { ...process.env, BENCH_ALLOC_DIR: dir },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const next = lineReader(child.stdout);
    const pause = (): Promise<void> => new Promise((r) => setTimeout(r, 300));
    const window = async (arrays: number, n: number): Promise<number> => {
      child.kill('SIGUSR2');
      await pause();
      child.stdin.write(`${arrays}\n`);
      expect(await next()).toBe('done');
      child.kill('SIGUSR2');
      const profile = await readProfile(dir, child.pid!, n, 10_000);
      if (n === 1) expect(allocationSites(profile, 1)[0]![0]).toMatch(/^fill \[eval\]/);
      return allocatedBytes(profile);
    };
    try {
      expect(await next()).toBe('ready');
      const small = await window(200, 0);
      const large = await window(2000, 1);
      // 2,000 arrays of 8 KB are 16 MB: a sampled estimate, within a fifth
      expect(large).toBeGreaterThan(16e6 * 0.8);
      expect(large).toBeLessThan(16e6 * 1.25);
      expect(large / small).toBeGreaterThan(6);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
