import { execFileSync, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { contextSwitches, cpuMicros, cpuTimes, ioCalls, localProcess } from '../lib/process-cpu.mjs';

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

  it('counts each read and write system call and the bytes they moved', () => {
    const before = ioCalls(process.pid)!;
    const source = openSync('/dev/zero', 'r');
    const sink = openSync('/dev/null', 'w');
    const small = Buffer.alloc(1000);
    const large = Buffer.alloc(10_000);
    try {
      for (let i = 0; i < 40; i++) readSync(source, small);
      for (let i = 0; i < 5; i++) writeSync(sink, large);
    } finally {
      closeSync(source);
      closeSync(sink);
    }
    const after = ioCalls(process.pid)!;
    // 40 reads of 1,000 bytes and 5 writes of 10,000: other threads may add theirs, never fewer, and not 35 writes
    expect(after.reads - before.reads).toBeGreaterThanOrEqual(40);
    expect(after.writes - before.writes).toBeGreaterThanOrEqual(5);
    expect(after.writes - before.writes).toBeLessThan(after.reads - before.reads);
    expect(after.bytesRead - before.bytesRead).toBeGreaterThanOrEqual(40_000);
    expect(after.bytesWritten - before.bytesWritten).toBeGreaterThanOrEqual(50_000);
  });

  it('counts no reads or writes for a process that has gone', () => {
    const pid = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']));
    expect(ioCalls(pid)).toBeUndefined();
  });

  it('finds a process by its pid only while it runs the named program here', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => child.once('spawn', resolve));
      const pid = child.pid!;
      expect(localProcess(pid, 'sleep')).toBe(pid);
      // a server on another host reports a pid that names some other program here
      expect(localProcess(pid, 'redis-server')).toBeUndefined();
    } finally {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    expect(localProcess(child.pid!, 'sleep')).toBeUndefined(); // gone
    expect(localProcess(0, 'sleep')).toBeUndefined();
    expect(localProcess(Number.NaN, 'sleep')).toBeUndefined();
  });
});
