/**
 * CPU profiles kept by every bench run: the engine relaying calls at 256 outstanding (our SDK's caller and
 * executor, 100 B payloads) and svc-http under 256 connections (GET through svc-http → engine → worker), each
 * process under node's --cpu-prof. The files go to bench-results/profiles/<run>/ (engine-256.cpuprofile,
 * svc-http-256.cpuprofile; open them in Chrome's DevTools or sum them with scripts/bench/profile-summary.mjs), and
 * the run prints each one's kinds of work and top functions. A profile covers its process's whole life (start-up,
 * warm-up, then BENCH_PROFILE_SECONDS (3) of load); the load is most of its busy time.
 *
 * These runs are profiled and measure nothing: the other scripts' rows are taken without a profiler. The rows
 * here give the share of the profile's busy time of its top function and of garbage collection.
 *
 *   node scripts/bench/profiles.mjs        (after `npm run build`)
 */
import { mkdirSync, readdirSync, renameSync, rmdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { role, startEngineProcess } from './invoke/procs.mjs';
import { profileLines, summariseProfile } from './lib/profile.mjs';
import { startHttpPath } from './lib/processes.mjs';
import { runWhenCalledDirectly } from './lib/main.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SECONDS = Number(process.env.BENCH_PROFILE_SECONDS ?? 3);
const OUTSTANDING = 256;

/** The engine under --cpu-prof at 256 outstanding calls; returns the profile's path and the calls/s meanwhile. */
async function profileEngine(dir) {
  const engineDir = join(dir, 'engine');
  const engine = await startEngineProcess({ cpuProfDir: engineDir });
  const stops = [() => engine.stop()];
  let perSecond;
  try {
    const executor = role('sdk-executor', engine.url);
    stops.push(() => executor.stop());
    await executor.ready;
    const caller = role('sdk-caller', engine.url);
    stops.push(() => caller.stop());
    await caller.ready;
    ({ perSecond } = await caller.ask({
      cmd: 'tput',
      concurrency: OUTSTANDING,
      ms: SECONDS * 1000,
      size: 100,
      warmMs: 1000,
    }));
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
  // --cpu-prof names the file after the process and time; the engine's directory holds only this one
  const [written] = readdirSync(engineDir).filter((f) => f.endsWith('.cpuprofile'));
  if (written === undefined) throw new Error(`the engine wrote no profile to ${engineDir}`);
  const file = join(dir, 'engine-256.cpuprofile');
  renameSync(join(engineDir, written), file);
  rmdirSync(engineDir);
  return { file, rate: `${Math.round(perSecond)} calls/s` };
}

/** svc-http under --cpu-prof with 256 connections of GET requests; returns the profile's path and the req/s. */
async function profileHttp(dir) {
  const procs = [];
  let requests;
  try {
    const { url } = await startHttpPath(procs, {
      http: ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-name=svc-http-256.cpuprofile'],
    });
    await load(url, 1);
    const result = await load(url, SECONDS);
    requests = result.requests.average;
    if (result.non2xx > 0 || result.errors > 0) {
      throw new Error(`svc-http answered ${result.non2xx} non-2xx and ${result.errors} errors under the profiler`);
    }
  } finally {
    for (const p of procs.reverse()) await p.stop();
  }
  return { file: join(dir, 'svc-http-256.cpuprofile'), rate: `${Math.round(requests)} req/s` };
}

function load(url, duration) {
  return new Promise((res, rej) => {
    autocannon({ url, connections: OUTSTANDING, duration }, (err, result) => (err ? rej(err) : res(result)));
  });
}

export async function run({ log = console.log } = {}) {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const dir = join(ROOT, 'bench-results/profiles', stamp);
  mkdirSync(dir, { recursive: true });
  const rows = [];
  for (const [what, profile] of [
    ['engine, 256 outstanding calls', profileEngine],
    ['svc-http, 256 connections', profileHttp],
  ]) {
    const { file, rate } = await profile(dir);
    const summary = summariseProfile(file);
    const [first, ...lines] = profileLines(summary, { top: 10, packages: false });
    log(`${what} (${rate} under the profiler): ${relative(ROOT, file)}, ${first}`);
    for (const line of lines) log(`  ${line}`);
    const share = (us) => Math.round((1000 * us) / summary.busy) / 10;
    const [topName, topUs] = summary.functions[0];
    const gc = summary.kinds.find(([kind]) => kind === 'garbage collection')?.[1] ?? 0;
    rows.push(
      { name: `CPU profile, ${what}: top function (${topName})`, value: share(topUs), unit: '% busy' },
      { name: `CPU profile, ${what}: garbage collection`, value: share(gc), unit: '% busy' },
    );
  }
  return rows;
}

runWhenCalledDirectly(import.meta.url, run);
