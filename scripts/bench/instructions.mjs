// Instructions per call, counted by valgrind's callgrind (lib/callgrind.mjs): each process of an invoke path runs
// under it, and every user-space instruction each of its threads runs in a measured window is counted. The rows give
// the main thread's, where the process's JavaScript and socket work run; the log line gives all threads' as well (V8's
// compiler and garbage collector helpers run when V8 decides, and move that count from run to run). A count is the
// same for the same work whatever else the host does, where calls per second and CPU time move with it; it leaves
// out what the kernel and the hypervisor spend (system calls, wake-ups) and what a cache or TLB miss costs. The paths
// (svc, relay, iii, with 100 B payloads) are those of invoke/paths.mjs.
// Each path: BENCH_INSTR_WARM (3,000) unmeasured sequential calls, BENCH_INSTR_TPUT (10,000) unmeasured ones at 256
// outstanding and BENCH_INSTR_WARM sequential ones again, then BENCH_INSTR_SEQ (1,000) measured sequential calls;
// BENCH_INSTR_TPUT unmeasured calls at 256 outstanding, then as many measured; a 3 s pause before each window. Rows:
// each process's instructions per call against the same process of the relay's path (the engine against the relay),
// and the iii path's against ours. No targets: the rows say where a path's work is, beside the timed rows of
// invoke-peers. The log line also gives how much of each main thread's count was V8's garbage collector's own work: a
// window of 1,000 sequential calls that holds a full collection counts up to a third more. BENCH_INSTR_KEEP=<dir>
// keeps the dumps and each process's perf map, and prints for each process the
// `node scripts/bench/callgrind-summary.mjs` command that says where its instructions went (by kind of work and by
// function). Skipped, with a line saying so, where valgrind is not installed. Not part of the default run (about nine
// minutes): `node scripts/bench/run.mjs instructions`.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { comparisonRows, measureWindows, startPath, WHO } from './invoke/paths.mjs';
import { callgrindAvailable, callgrindCommand, dumpCounts, zeroCounts } from './lib/callgrind.mjs';
import { runWhenCalledDirectly } from './lib/main.mjs';

const WARM = Number(process.env.BENCH_INSTR_WARM ?? 3000);
const SEQ = Number(process.env.BENCH_INSTR_SEQ ?? 1000);
const TPUT = Number(process.env.BENCH_INSTR_TPUT ?? 10000);
const PATHS = (process.env.BENCH_INSTR_PATHS ?? 'svc,relay,iii').split(',');
// BENCH_INSTR_KEEP=<dir>: the dumps are kept there with each process's perf map, for callgrind-summary.mjs
const KEEP = process.env.BENCH_INSTR_KEEP ? resolve(process.env.BENCH_INSTR_KEEP) : undefined;
// (V8 also writes a small log of its own with the perf map: kept there too, not in the working directory)
const NODE_ARGS = KEEP ? ['--perf-basic-prof', '--no-logfile-per-isolate', `--logfile=${join(KEEP, 'v8-%p.log')}`] : [];
const SIZE = 100;
/** A process under callgrind runs ~50 times slower: the engine's start and a worker's registration take seconds. */
const START_MS = 120_000;
const REGISTRATION_MS = 3000;
/** An idle pause after each warm-up, in which V8's helper threads finish the compilations it queued. */
const SETTLE_MS = 3000;

/**
 * One path's processes under callgrind: instructions per call of each (middle, executor, caller), sequential and at
 * 256 outstanding.
 */
async function countPath(kind, dir, log) {
  const { caller, pids, stop } = await startPath(kind, {
    execArgv: NODE_ARGS,
    wrapper: callgrindCommand(dir),
    readyMs: START_MS,
    // its registration reaches a middle process that runs as slowly: give it time before the first call
    registrationMs: REGISTRATION_MS,
  });
  try {
    const window = async (cmd, calls) => {
      for (const pid of pids) zeroCounts(pid);
      await caller.ask(cmd);
      const counts = pids.map((pid) => dumpCounts(pid, dir));
      return {
        main: counts.map((c) => c.main / calls),
        all: counts.map((c) => c.all / calls),
        collector: counts.map((c) => c.collector / calls),
      };
    };
    const started = Date.now();
    const { seq, tput } = await measureWindows(
      caller,
      { warmSeq: WARM, warmTput: TPUT, seq: SEQ, tput: TPUT, settleMs: SETTLE_MS, size: SIZE },
      window,
    );
    const k = (xs) => xs.map((x) => (x / 1000).toFixed(1)).join(', ');
    log(
      `${kind}: k instructions per call on the main thread (middle, executor, caller): sequential ${k(seq.main)}; ` +
        `@256 ${k(tput.main)}; of those, in V8's garbage collector: sequential ${k(seq.collector)}; ` +
        `@256 ${k(tput.collector)}; on all threads: sequential ${k(seq.all)}; @256 ${k(tput.all)} ` +
        `(${((Date.now() - started) / 1000).toFixed(0)} s under callgrind)`,
    );
    if (KEEP) keepMaps(kind, pids, log);
    return { seq: seq.main, tput: tput.main };
  } finally {
    await stop();
  }
}

/** Copies each process's perf map beside its dumps and prints the commands that summarise its two windows. */
function keepMaps(kind, pids, log) {
  pids.forEach((pid, i) => {
    const map = `/tmp/perf-${pid}.map`;
    if (existsSync(map)) copyFileSync(map, join(KEEP, `perf-${pid}.map`));
    const summary = (dump, calls) =>
      `node scripts/bench/callgrind-summary.mjs ${join(KEEP, `callgrind.${pid}.${dump}-01`)} ` +
      `--map ${join(KEEP, `perf-${pid}.map`)} --calls ${calls}`;
    log(`${kind} ${WHO[kind][i]}: ${summary(1, SEQ)} (sequential); ${summary(2, TPUT)} (@256)`);
  });
}

const round1 = (x) => Math.round(x / 100) / 10;
const ROWS = { what: 'k instructions per call', unit: 'k instr/call', round: round1 };

/** Runs only when asked for by name (run.mjs). */
export const namedOnly = true;

export async function run({ log = console.log } = {}) {
  if (!callgrindAvailable()) {
    log('instructions: skipped: valgrind (with callgrind_control) is not installed');
    return [];
  }
  if (KEEP) mkdirSync(KEEP, { recursive: true });
  const dir = KEEP ?? mkdtempSync(join(tmpdir(), 'svc-bench-callgrind-'));
  try {
    log(
      `instructions: each path's three processes under callgrind; ${SEQ} measured sequential calls after ${WARM} ` +
        `unmeasured ones (and ${TPUT} at 256 outstanding before those), then ${TPUT} measured at 256 outstanding after ` +
        `as many unmeasured (100 B)`,
    );
    const counts = {};
    for (const kind of PATHS) counts[kind] = await countPath(kind, dir, log);
    return comparisonRows(counts, ROWS);
  } finally {
    if (!KEEP) rmSync(dir, { recursive: true, force: true });
  }
}

runWhenCalledDirectly(import.meta.url, run);
