import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { contextSwitches, cpuMicros, cpuTimes } from '../lib/process-cpu.mjs';

describe("the bench's reading of one process's CPU time", () => {
  it('splits it into user and system time, whose sum is the total', () => {
    const times = cpuTimes(process.pid);
    expect(times).toBeDefined();
    expect(times!.user).toBeGreaterThan(0); // loading vitest and this file took user time
    expect(times!.system).toBeGreaterThanOrEqual(0);
    expect(times!.total).toBe(times!.user + times!.system);
    expect(cpuMicros(process.pid)).toBeGreaterThanOrEqual(times!.total);
  });

  it('counts work in JavaScript as user time', () => {
    const before = cpuTimes(process.pid)!;
    const end = Date.now() + 150;
    let n = 0;
    while (Date.now() < end) n += Math.sqrt(n + 1);
    const after = cpuTimes(process.pid)!;
    expect(n).toBeGreaterThan(0);
    // 150 ms of a busy loop: at least 50 ms of user time, in whole 10 ms ticks
    expect(after.user - before.user).toBeGreaterThanOrEqual(50_000);
    expect((after.user - before.user) % 10_000).toBe(0);
  });

  it('gives nothing for a process that has gone', () => {
    const pid = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']));
    expect(cpuTimes(pid)).toBeUndefined();
    expect(cpuMicros(pid)).toBeUndefined();
  });

  it('counts each wait of its threads for a timer as a voluntary context switch', async () => {
    const before = contextSwitches(process.pid)!;
    expect(before.voluntary).toBeGreaterThanOrEqual(0);
    expect(before.involuntary).toBeGreaterThanOrEqual(0);
    for (let i = 0; i < 10; i++) await sleep(5); // the main thread sleeps in epoll_wait ten times
    const after = contextSwitches(process.pid)!;
    expect(after.voluntary - before.voluntary).toBeGreaterThanOrEqual(10);
    expect(after.involuntary).toBeGreaterThanOrEqual(before.involuntary);
  });

  it('counts no context switches for a process that has gone', () => {
    const pid = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']));
    expect(contextSwitches(pid)).toBeUndefined();
  });
});
