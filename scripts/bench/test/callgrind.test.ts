import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { callgrindAvailable, callgrindCommand, dumpCounts, instructionTotal, zeroCounts } from '../lib/callgrind.mjs';
import { lineReader } from './child-lines.js';

describe("the bench's reading of a callgrind dump", () => {
  it('takes the summary line, else the totals line', () => {
    expect(instructionTotal('version: 1\nevents: Ir\nsummary: 50516388\ntotals: 51002771\n')).toBe(50516388);
    expect(instructionTotal('events: Ir\ntotals: 1234\n')).toBe(1234);
  });

  it('says so when the text is no dump', () => {
    expect(() => instructionTotal('events: Ir\n')).toThrow(/not a callgrind dump/);
  });
});

const dir = mkdtempSync(join(tmpdir(), 'svc-callgrind-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!callgrindAvailable())('instructions counted in a window (needs valgrind)', () => {
  it("counts more for a window with more work in it, and the collector's part of it", async () => {
    // a program that spins for as many iterations as each line on stdin asks, each making an array of 16 that it
    // drops at once, then answers "done"
    const program =
      "process.stdin.on('data', (d) => { let s = 0; for (let i = 0; i < Number(d); i++) s += new Array(16).fill(i).length % 7;" +
      " process.stdout.write('done ' + s + '\\n'); }); process.stdout.write('ready\\n');";
    const command = callgrindCommand(dir);
    const child = spawn(command[0]!, [...command.slice(1), process.execPath, '-e', program], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const next = lineReader(child.stdout);
    try {
      expect(await next()).toBe('ready');
      const window = async (iterations: number): Promise<{ main: number; collector: number }> => {
        zeroCounts(child.pid!);
        child.stdin.write(`${iterations}\n`);
        expect(await next()).toMatch(/^done /);
        const counts = dumpCounts(child.pid!, dir);
        expect(counts.all).toBeGreaterThanOrEqual(counts.main);
        expect(counts.collector).toBeGreaterThanOrEqual(0);
        expect(counts.collector).toBeLessThan(counts.main);
        return counts;
      };
      const small = await window(1_000);
      const large = await window(100_000);
      expect(small.main).toBeGreaterThan(0);
      // a hundred thousand iterations run at least a few instructions each: far more than a thousand do
      expect(large.main - small.main).toBeGreaterThan(300_000);
      // a hundred thousand dropped arrays (~18 MB) fill V8's young generation several times over: the collector's
      // work in that window is counted
      expect(large.collector).toBeGreaterThan(small.collector);
    } finally {
      child.kill('SIGKILL');
    }
  }, 120_000);
});
