import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ratioText, reportTables, type BenchResult } from '../lib/report.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const FIXTURE = join(HERE, 'fixtures/bench-result.json');
// one full `npm run bench` (run FN of docs/performance.md), its log kept to the lines the report reads
const result = (): BenchResult => JSON.parse(readFileSync(FIXTURE, 'utf8'));

function cellOf(table: string, title: string): string[] {
  const line = table.split('\n').find((l) => l.startsWith(`| ${title} |`));
  if (!line) throw new Error(`no row ${title}`);
  return line
    .split(' | ')
    .slice(1)
    .map((c) => c.replace(/ \|$/, ''));
}

describe("the bench's report", () => {
  it("gives each target's row as the docs print it, met in bold, with the figures behind it", () => {
    const table = reportTables([{ label: 'FN', result: result() }]);
    expect(table.split('\n').slice(0, 2)).toEqual(['| target | FN |', '|---|---|']);
    expect(cellOf(table, 'invoke 100 B @256, our SDK both ends, ≥ 1.5× Moleculer/NATS')).toEqual(['**1.80**']);
    expect(cellOf(table, "… calls/s, ours / Moleculer's")).toEqual(['51,165 / 28,450']);
    expect(cellOf(table, 'invoke @256, iii-sdk both ends, ≥ 1.0× Moleculer/NATS')).toEqual(['0.48']);
    expect(
      cellOf(
        table,
        "… CPU µs per call: engine, iii-sdk executor, iii-sdk caller (the path against Moleculer's, ≤ 1.0×)",
      ),
    ).toEqual(['39.6, 48.1, 44.5 (2.12×)']);
    expect(cellOf(table, "… CPU µs per request, ours (svc-http, engine, worker) / the bare server's")).toEqual([
      '150.6 (92, 34, 24) / 56.1',
    ]);
    expect(cellOf(table, '`state::set` / `get` vs an echo call, in-memory store, ≥ 0.7×')).toEqual(['**1.01 / 0.98**']);
    expect(cellOf(table, 'stream fan-out, 1,000 real clients, p99 < 50 ms, 0 missing')).toEqual(['143.50 ms, 0']);
    expect(cellOf(table, "… the client processes' CPU, in cores")).toEqual(['1.37']);
    expect(cellOf(table, 'engine start to ready < 300 ms')).toEqual(['**257 ms**']);
    expect(cellOf(table, '… without the code cache (the first start after a rebundling build)')).toEqual(['289 ms']);
    expect(table).toContain('| FN | 14:40–14:50 | 3.6 | 644 ns | 100 ms | 1% | 22 of 25 |');
  });

  it('bolds only the half of a state row that met, and each run in its own column', () => {
    const missed = result();
    const redisSet = missed.rows.find((r) => /state::set via .*Redis.*vs an echo/.test(r.name))!;
    redisSet.value = 13169;
    redisSet.floor = 19495;
    redisSet.ratio = 0.68;
    delete redisSet.met;
    const table = reportTables([
      { label: 'A', result: result() },
      { label: 'B', result: missed },
    ]);
    expect(cellOf(table, 'the same, Redis')).toEqual(['**0.75 / 0.74**', '0.68 / **0.74**']);
  });

  it('prints a ratio whose two decimals would read the other way than its verdict with the digits that decide it', () => {
    expect(ratioText({ value: 16723, floor: 33483, unit: 'req/s', target: '≥ 0.5' })).toBe('0.499');
    expect(ratioText({ value: 9497, floor: 18852, unit: 'req/s', target: '≥ 0.5' })).toBe('0.50');
    expect(ratioText({ value: 211.5, floor: 214.2, unit: 'µs', target: '≤ 1.0' })).toBe('0.99');
    expect(ratioText({ value: 100.4, floor: 100, unit: 'µs', target: '≤ 1.0' })).toBe('1.004');
  });

  it("names the run and what it lacks: a missing script's row, or a file written before the log was kept", () => {
    const noStream = result();
    noStream.rows = noStream.rows.filter((r) => r.area !== 'stream-client');
    expect(() => reportTables([{ label: 'X', result: noStream }])).toThrow(
      /^X: no row of the stream-client script matching .*latency p99.* \(did the script run\?\)$/,
    );
    const old = result();
    for (const area of old.areas ?? []) delete area.log;
    expect(() => reportTables([{ label: 'Y', result: old }])).toThrow(
      "Y: the invoke-peers script's log is not in this file (written before the bench kept its log lines)",
    );
  });

  it('runs as a command: labels from the arguments, a clear error for a file that is not a result', () => {
    const script = join(HERE, '../report.mjs');
    const out = execFileSync(process.execPath, [script, `FN=${FIXTURE}`, FIXTURE], { encoding: 'utf8' });
    expect(out.split('\n')[0]).toBe('| target | FN | 14:50 |');
    const bad = spawnSync(process.execPath, [script, join(HERE, 'report.test.ts')], { encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^report: .*report\.test\.ts: not a bench result \(/);
    const none = spawnSync(process.execPath, [script], { encoding: 'utf8' });
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('usage: node scripts/bench/report.mjs');
  });
});
