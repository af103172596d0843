import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { monotonicMs } from '../lib/clock.mjs';

const CLOCK = fileURLToPath(new URL('../lib/clock.mjs', import.meta.url));

describe("the bench's clock for latencies measured across processes", () => {
  it("reads, in a process started now, a time between this older process's readings before and after it", () => {
    const before = monotonicMs();
    const child = Number(
      execFileSync(process.execPath, [
        '--input-type=module',
        '-e',
        `import { monotonicMs } from ${JSON.stringify(CLOCK)}; process.stdout.write(String(monotonicMs()));`,
      ]),
    );
    const after = monotonicMs();
    expect(child).toBeGreaterThanOrEqual(before);
    expect(child).toBeLessThanOrEqual(after);
  });

  it('has sub-millisecond resolution', () => {
    const readings = new Set<number>();
    for (let i = 0; i < 1000; i++) readings.add(monotonicMs() % 1);
    expect(readings.size).toBeGreaterThan(1);
  });
});
