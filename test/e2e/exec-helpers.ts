/** Helpers of the exec supervisor tests: the record file a fixture child writes, and process liveness. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../harness.js';

export const CHILD = join(ROOT, 'test/e2e/exec-fixtures/child.mjs');

export interface ChildEvent {
  event: 'start' | 'sigterm';
  pid: number;
  t: number;
  args?: string[];
  env?: Record<string, string | undefined>;
}

export function readEvents(file: string): ChildEvent[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ChildEvent);
}

export function starts(file: string): ChildEvent[] {
  return readEvents(file).filter((e) => e.event === 'start');
}

/** True while `pid` exists and is not a zombie (`ps` state Z counts as gone for "running" but is reported). */
export function processState(pid: number): 'running' | 'zombie' | 'gone' {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 'gone';
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' ? 'zombie' : 'running';
}

/** Waits until the child recorded at least `count` starts; returns them. */
export async function waitForStarts(file: string, count: number, timeoutMs = 10000): Promise<ChildEvent[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = starts(file);
    if (found.length >= count) return found;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${count} starts in ${file} (saw ${found.length})`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
