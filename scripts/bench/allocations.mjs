// Bytes allocated per call, sampled by V8's heap profiler (lib/heap-sampler.mjs, loaded into each process of an
// invoke path): every object a process allocates in a measured window counts, those the garbage collector has
// freed since included, so the figure says how much young-generation collection a call brings about, which CPU time
// shows only as the collector's share. The paths (svc, relay, iii, with 100 B payloads) are those of
// invoke/paths.mjs. Each path: BENCH_ALLOC_WARM (10,000) unmeasured sequential calls, 50,000 unmeasured ones at 256
// outstanding and BENCH_ALLOC_WARM sequential ones again, then BENCH_ALLOC_SEQ (20,000) measured sequential calls;
// 50,000 unmeasured calls at 256 outstanding, then BENCH_ALLOC_TPUT (100,000) measured; a short pause before each
// window. Rows: each process's bytes per call against the same process of the relay's path (the engine against the
// relay), and the iii path's against ours. The log gives each process's BENCH_ALLOC_SITES (5) largest allocation
// sites, as the innermost three functions of their stacks. The sampler picks an object with a chance that grows
// with its size (one sample per 512 bytes on average), so a figure is an estimate within a few per cent at these
// window sizes. No targets. Not part of the default run (about 1.5 minutes): `node scripts/bench/run.mjs allocations`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { comparisonRows, measureWindows, startPath, WHO } from './invoke/paths.mjs';
import { allocatedBytes, allocationSites, readProfile } from './lib/heap-profile.mjs';
import { runWhenCalledDirectly } from './lib/main.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const WARM = Number(process.env.BENCH_ALLOC_WARM ?? 10_000);
const WARM_TPUT = 50_000;
const SEQ = Number(process.env.BENCH_ALLOC_SEQ ?? 20_000);
const TPUT = Number(process.env.BENCH_ALLOC_TPUT ?? 100_000);
const SITES = Number(process.env.BENCH_ALLOC_SITES ?? 5);
const PATHS = (process.env.BENCH_ALLOC_PATHS ?? 'svc,relay,iii').split(',');
/** An idle pause after each warm-up, and after each signal that starts or ends a window, for every process to act. */
const SETTLE_MS = 500;
const SAMPLER = ['--import', join(HERE, 'lib/heap-sampler.mjs')];

/** One path's processes, sampled: bytes allocated per call by each (middle, executor, caller) in each window. */
async function samplePath(kind, dir, log) {
  const { caller, pids, stop } = await startPath(kind, { execArgv: SAMPLER });
  try {
    let windowNumber = 0;
    const toggle = () => {
      for (const pid of pids) process.kill(pid, 'SIGUSR2');
      return new Promise((r) => setTimeout(r, SETTLE_MS));
    };
    const measure = async (cmd) => {
      await toggle();
      await caller.ask(cmd);
      await toggle();
      const n = windowNumber++;
      return Promise.all(pids.map((pid) => readProfile(dir, pid, n)));
    };
    const profiles = await measureWindows(
      caller,
      { warmSeq: WARM, warmTput: WARM_TPUT, seq: SEQ, tput: TPUT, settleMs: SETTLE_MS },
      measure,
    );
    const perCall = { seq: [], tput: [] };
    for (const [mode, calls, label] of [
      ['seq', SEQ, 'sequential'],
      ['tput', TPUT, '@256'],
    ]) {
      profiles[mode].forEach((profile, i) => {
        const bytes = allocatedBytes(profile) / calls;
        perCall[mode].push(bytes);
        const sites = allocationSites(profile)
          .slice(0, SITES)
          .map(([site, b]) => `${Math.round(b / calls)} B ${site}`);
        log(`${kind} ${WHO[kind][i]}, ${label}: ${Math.round(bytes)} B per call; most at: ${sites.join('; ')}`);
      });
    }
    return perCall;
  } finally {
    await stop();
  }
}

const ROWS = { what: 'bytes allocated per call', unit: 'B/call', round: Math.round };

/** Runs only when asked for by name (run.mjs). */
export const namedOnly = true;

export async function run({ log = console.log } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-alloc-'));
  // the sampler loaded into every process of a path writes its profiles there (lib/heap-sampler.mjs)
  const before = process.env.BENCH_ALLOC_DIR;
  process.env.BENCH_ALLOC_DIR = dir;
  try {
    log(
      `allocations: each path's three processes under V8's sampling heap profiler; ${SEQ} measured sequential ` +
        `calls, then ${TPUT} at 256 outstanding, each after unmeasured calls of its own kind (100 B)`,
    );
    const bytes = {};
    for (const kind of PATHS) bytes[kind] = await samplePath(kind, dir, log);
    return comparisonRows(bytes, ROWS);
  } finally {
    if (before === undefined) delete process.env.BENCH_ALLOC_DIR;
    else process.env.BENCH_ALLOC_DIR = before;
    rmSync(dir, { recursive: true, force: true });
  }
}

runWhenCalledDirectly(import.meta.url, run);
