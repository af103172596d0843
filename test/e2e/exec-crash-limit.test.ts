/**
 * The supervisor gives up, loudly, after too many crashes in its window (a crash loop is not restarted forever). Drives
 * `SupervisedProcess` directly with a small policy so the test takes a second, with real child processes.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { CrashTracker, SupervisedProcess, type ProcessState } from '../../engine/src/modules/exec/index.js';
import { waitFor } from '../harness.js';
import { CHILD, starts } from './exec-helpers.js';

describe('supervisor crash limit', () => {
  it('marks a child failed after maxRestarts crashes within the window and stops restarting it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-exec-')), 'events.jsonl');
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const states: ProcessState[] = [];
    const supervised = new SupervisedProcess(
      { name: 'crasher', command: process.execPath, args: [CHILD, file, 'crash'] },
      {
        logger,
        policy: { initialDelayMs: 20, maxDelayMs: 40, maxRestarts: 3, windowMs: 60_000 },
        onState: (s) => states.push(s),
      },
    );
    supervised.start();
    await waitFor(() => supervised.state === 'failed', 10000, 'failed state');
    // 1 first start + 3 restarts; the 4th crash exceeds the limit.
    expect(starts(file)).toHaveLength(4);
    expect(lines.join('')).toMatch(/crasher FAILED: it crashed 4 times/);
    expect(lines.some((l) => l.includes('"level":50'))).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    expect(starts(file)).toHaveLength(4);
    // A watched-file restart revives it with a clean history (it crashes again here, and is restarted again).
    await supervised.restart('file changed');
    await waitFor(() => starts(file).length >= 6, 10000, 'revived after restart');
    await supervised.close();
    expect(states.at(-1)).toBe('stopped');
  });

  it('backoff grows exponentially, is capped, and resets after a healthy run', () => {
    const tracker = new CrashTracker({
      initialDelayMs: 100,
      maxDelayMs: 1000,
      factor: 2,
      healthyAfterMs: 5000,
      maxRestarts: 100,
      windowMs: 60_000,
    });
    const delays = [0, 1, 2, 3, 4, 5].map((i) => {
      const d = tracker.onCrash(i * 10, 10);
      return d.action === 'restart' ? d.delayMs : -1;
    });
    expect(delays).toEqual([100, 200, 400, 800, 1000, 1000]);
    const afterHealthy = tracker.onCrash(100_000, 6000);
    expect(afterHealthy).toEqual({ action: 'restart', delayMs: 100, attempt: 1 });
  });

  it('crashes outside the window do not count towards the limit', () => {
    const tracker = new CrashTracker({
      initialDelayMs: 1,
      maxDelayMs: 1,
      factor: 2,
      healthyAfterMs: 1e9,
      maxRestarts: 2,
      windowMs: 1000,
    });
    expect(tracker.onCrash(0, 1).action).toBe('restart');
    expect(tracker.onCrash(10, 1).action).toBe('restart');
    expect(tracker.onCrash(2000, 1).action).toBe('restart');
    expect(tracker.onCrash(2010, 1).action).toBe('restart');
    expect(tracker.onCrash(2020, 1)).toEqual({ action: 'fail', crashes: 3 });
  });
});
