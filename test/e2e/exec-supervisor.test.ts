/**
 * The exec module as a user runs it: `svc -c <config>` with a `modules::shell::ExecModule` entry, real child processes
 * (restart with backoff, SIGTERM then SIGKILL after the grace period, arguments without a shell, restart on a watched
 * change).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEngine, type EngineProcess } from '../harness.js';
import { CHILD, processState, readEvents, starts, waitForStarts } from './exec-helpers.js';

let engine: EngineProcess | undefined;
afterEach(async () => {
  await engine?.stop(3000);
  engine = undefined;
});

function execModule(file: string, mode: string, extra: string[] = [], watch?: string[]): object {
  return {
    class: 'modules::shell::ExecModule',
    config: { exec: [process.execPath, CHILD, file, mode, ...extra], ...(watch ? { watch } : {}) },
  };
}

describe('modules::shell::ExecModule', () => {
  it('spawns the command without a shell, with SVC_URL and SVC_SUPERVISED; its output goes to the engine log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-exec-'));
    const file = join(dir, 'events.jsonl');
    const evil = '; id $(whoami) `touch pwned` | cat /etc/passwd';
    engine = await startEngine({ modules: [execModule(file, 'stay', [evil, '$HOME', '*'])] });
    const [first] = await waitForStarts(file, 1);
    expect(first?.args).toEqual([evil, '$HOME', '*']);
    expect(first?.env).toMatchObject({ SVC_URL: engine.url, SVC_SUPERVISED: '1' });
    await engine.waitForOutput(`child ${first?.pid} started in mode stay`, 5000);
    expect(engine.logs()).toMatch(/"process":"node"/);
  });

  it('restarts a crashing child with exponential backoff (100 ms, 200 ms, 400 ms ...)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-exec-'));
    const file = join(dir, 'events.jsonl');
    engine = await startEngine({ modules: [execModule(file, 'crash')] });
    const events = await waitForStarts(file, 5, 15000);
    const gaps = events.slice(1).map((e, i) => e.t - (events[i]?.t ?? 0));
    // Each wait is at least the backoff delay (100, 200, 400, 800 ms), so the gaps keep growing.
    expect(gaps[0]).toBeGreaterThanOrEqual(90);
    expect(gaps[1]).toBeGreaterThanOrEqual(190);
    expect(gaps[2]).toBeGreaterThanOrEqual(390);
    expect(gaps[3]).toBeGreaterThanOrEqual(790);
    expect(engine.logs()).toContain('exited unexpectedly; restarting in 800 ms');
    // The engine itself is unaffected.
    expect(engine.exited).toBe(false);
  });

  it('restarts the process when a file in a watched directory changes (debounced: one restart per burst)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-exec-'));
    const src = mkdtempSync(join(tmpdir(), 'svc-exec-src-'));
    const file = join(dir, 'events.jsonl');
    engine = await startEngine({ modules: [execModule(file, 'stay', [], [src])] });
    const [first] = await waitForStarts(file, 1);
    for (let i = 0; i < 5; i++) writeFileSync(join(src, `f${i}.js`), `// ${i}`);
    const all = await waitForStarts(file, 2);
    expect(all[1]?.pid).not.toBe(first?.pid);
    expect(readEvents(file).some((e) => e.event === 'sigterm' && e.pid === first?.pid)).toBe(true);
    expect(processState(first?.pid ?? 0)).toBe('gone');
    // A burst of five writes gives one restart, not five.
    await new Promise((r) => setTimeout(r, 800));
    expect(starts(file)).toHaveLength(2);
  });

  it('on SIGTERM stops children with SIGTERM, SIGKILLs one that ignores it after the grace period, exits 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-exec-'));
    const polite = join(dir, 'polite.jsonl');
    const stubborn = join(dir, 'stubborn.jsonl');
    engine = await startEngine({
      config: { shutdown_grace_ms: 700 },
      modules: [execModule(polite, 'stay'), execModule(stubborn, 'ignore-term')],
    });
    const [p] = await waitForStarts(polite, 1);
    const [s] = await waitForStarts(stubborn, 1);
    const t0 = Date.now();
    const code = await engine.stop(5000);
    const took = Date.now() - t0;
    engine = undefined;
    expect(code).toBe(0);
    // everything exits within the grace period + 1 s; a little slack for a loaded CI machine.
    expect(took).toBeLessThan(700 + 1500);
    expect(readEvents(polite).some((e) => e.event === 'sigterm')).toBe(true);
    expect(readEvents(stubborn).some((e) => e.event === 'sigterm')).toBe(true);
    // Both reaped by the engine before it exited: gone, not zombies.
    expect(processState(p?.pid ?? 0)).toBe('gone');
    expect(processState(s?.pid ?? 0)).toBe('gone');
  });
});
