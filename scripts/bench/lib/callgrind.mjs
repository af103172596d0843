// Instruction counts from valgrind's callgrind, for the benchmarks: a process started under it counts every
// user-space instruction it runs (JIT-compiled JavaScript included); `zeroCounts` and `dumpCounts` around a measured
// window (through `callgrind_control`) give that window's count. A count is the same for the same work whatever
// else the machine does, where calls per second and CPU time move with the host.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectorCost } from './callgrind-dump.mjs';

/** Whether valgrind and callgrind_control can be run here. */
export function callgrindAvailable() {
  const ok = (cmd) => spawnSync(cmd, ['--version'], { stdio: 'ignore' }).status === 0;
  return ok('valgrind') && ok('callgrind_control');
}

/**
 * The command that runs a program under callgrind, its dumps written to `dir` (one file per dump and thread:
 * callgrind.<pid>.<dump>-<thread>). `--smc-check=all-non-file` makes valgrind notice code V8 writes at run time.
 */
export function callgrindCommand(dir) {
  return [
    'valgrind',
    '--tool=callgrind',
    '--smc-check=all-non-file',
    '--dump-instr=no',
    '--separate-threads=yes',
    '--quiet',
    `--callgrind-out-file=${join(dir, 'callgrind.%p')}`,
  ];
}

/** Starts a new window for the process's counts (all its threads). */
export function zeroCounts(pid) {
  execFileSync('callgrind_control', ['-z', String(pid)], { stdio: 'ignore' });
}

/**
 * The instructions the process ran since its counts were last zeroed, read from the dump this writes (a file per
 * thread): on its main thread, where its JavaScript runs, and on all its threads (V8's compiler and garbage
 * collector helpers, libuv's pool), whose share moves with when V8 chose to compile or collect; and `collector`, the
 * main thread's instructions in V8's garbage collector's own functions.
 */
export function dumpCounts(pid, dir) {
  execFileSync('callgrind_control', ['-d', String(pid)], { stdio: 'ignore' });
  const prefix = `callgrind.${pid}.`;
  // callgrind.<pid>.<dump>-<thread>
  const files = readdirSync(dir)
    .filter((f) => f.startsWith(prefix))
    .map((f) => ({ f, m: /^(\d+)-(\d+)$/.exec(f.slice(prefix.length)) }))
    .filter((x) => x.m !== null)
    .map((x) => ({ file: x.f, dump: Number(x.m[1]), thread: Number(x.m[2]) }));
  if (files.length === 0) throw new Error(`callgrind wrote no dump for process ${pid} in ${dir}`);
  const last = Math.max(...files.map((x) => x.dump));
  let main = 0;
  let all = 0;
  let collector = 0;
  for (const x of files.filter((y) => y.dump === last)) {
    const text = readFileSync(join(dir, x.file), 'utf8');
    const count = instructionTotal(text);
    all += count;
    if (x.thread === 1) {
      main = count;
      collector = collectorCost(text);
    }
  }
  return { main, all, collector };
}

/** The count of instructions (`Ir`) a callgrind dump holds: its `summary:` line, else its `totals:` line. */
export function instructionTotal(text) {
  const match = /^summary:\s+(\d+)/m.exec(text) ?? /^totals:\s+(\d+)/m.exec(text);
  if (match === null) throw new Error('not a callgrind dump: it has no summary or totals line');
  return Number(match[1]);
}
