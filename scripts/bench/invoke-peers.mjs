/* global URL */
// Invocation against the systems a user would pick instead, in the same run (100 B payloads):
//   svc     our SDK caller → engine → our SDK executor
//   mol     Moleculer 0.14: two brokers over NATS (`broker.call`), NATS at 127.0.0.1:4222 (skipped when absent)
//   relay   raw ws caller → a ws relay that parses and re-serialises every JSON frame → raw ws executor
//   iii     iii-sdk caller → engine → iii-sdk executor
//   raw     raw ws caller → engine → raw ws executor (only when asked for: BENCH_INVOKE_KINDS=svc,raw,relay tells
//           the engine's share of a gap to the relay from our SDK's)
// Targets: svc ≥ 1.5× Moleculer's calls/s at 256 outstanding; svc sequential p50 ≤ 1.0× the JSON relay's, in the
// steady state (after the throughput run and 4,000 more unmeasured sequential calls: the first thousands of calls
// of a fresh process set are still being compiled, ours more than a relay's few lines; the p50 of the first 1,000
// calls after 200 is printed beside it for reference); iii-sdk through the engine ≥ 1.0× Moleculer; the two rates
// restated as CPU per call summed over each path's processes (ours: caller, engine, executor; Moleculer's: two
// brokers and the NATS server when it runs on this machine), ≤ 0.67× and ≤ 1.0×. Each round also prints each
// process's CPU per sequential call with its user-space part in brackets, and how often each process went to sleep
// per call (voluntary context switches over its threads), at 256 outstanding and sequentially. Best of
// BENCH_ROUNDS (2) interleaved rounds. With BENCH_PROF=1 a last, unscored run at 256 outstanding of each path
// through the engine (svc, iii) writes the engine's CPU profile to bench-results/profiles/engine-<path>/.
import { join } from 'node:path';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { portOpen } from './lib/net.mjs';
import { role, startEngineProcess } from './invoke/procs.mjs';
import { contextSwitches, cpuTimes, ioCalls } from './lib/process-cpu.mjs';
import { natsServerPid } from './lib/processes.mjs';
import { runWhenCalledDirectly } from './lib/main.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const NATS_URL = process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222';
const SEQ_CALLS = Number(process.env.BENCH_SEQ_CALLS ?? 1000);
const STEADY_SEQ_CALLS = Number(process.env.BENCH_STEADY_SEQ_CALLS ?? 2000);
const STEADY_SEQ_WARM = Number(process.env.BENCH_STEADY_SEQ_WARM ?? 4000);
const TPUT_MS = Number(process.env.BENCH_TPUT_MS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SIZE = 100;
const PROFILE_DIR = join(ROOT, 'bench-results/profiles');

/** Starts one path's processes, runs `fn(caller)`, stops them. */
async function withPeer(kind, fn, options = {}) {
  const stops = [];
  const pids = [];
  try {
    let url;
    let names;
    if (kind === 'mol') {
      url = NATS_URL;
      names = ['mol-executor', 'mol-caller'];
    } else if (kind === 'relay') {
      const relay = role('json-relay', '');
      stops.push(() => relay.stop());
      pids.push(relay.child.pid);
      const { port } = await relay.ready;
      url = `ws://127.0.0.1:${port}`;
      names = ['executor', 'caller'];
    } else {
      const engine = await startEngineProcess(options);
      stops.push(() => engine.stop());
      pids.push(engine.pid);
      url = engine.url;
      names =
        kind === 'iii'
          ? ['iii-executor', 'iii-caller']
          : kind === 'raw'
            ? ['executor', 'caller']
            : ['sdk-executor', 'sdk-caller'];
    }
    const suffix = kind === 'relay' ? ['/exec', '/call'] : ['', ''];
    const env = kind === 'base' ? { BENCH_SDK_DIST: process.env.BENCH_SDK_BASE } : {};
    const executor = role(names[0], url + suffix[0], env);
    stops.push(() => executor.stop());
    await executor.ready;
    const caller = role(names[1], url + suffix[1], env);
    stops.push(() => caller.stop());
    await caller.ready;
    pids.push(executor.child.pid, caller.child.pid);
    // Moleculer's path runs through the NATS server as ours runs through the engine: its CPU is counted when it
    // runs on this machine (nothing else uses it during the round)
    const nats = kind === 'mol' ? natsServerPid() : undefined;
    if (nats !== undefined) pids.push(nats);
    return await fn(caller, pids);
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

/**
 * Latency of fresh processes, throughput at 256 outstanding, the CPU time all of the path's processes spent per call
 * meanwhile (less sensitive to a shared machine's load than calls/s; on Moleculer's path the NATS server's too, when
 * it runs on this machine), then the steady-state latency.
 */
async function measure(caller, pids) {
  const cold = await caller.ask({ cmd: 'seq', n: SEQ_CALLS, size: SIZE });
  const before = pids.map(userAndTotal);
  const sleepsBefore = pids.map(sleeps);
  const ioBefore = pids.map(io);
  const tput = await caller.ask({ cmd: 'tput', concurrency: 256, ms: TPUT_MS, size: SIZE });
  // the run includes a 200 ms warm-up at the same rate
  const calls = (tput.perSecond * (TPUT_MS + 200)) / 1000;
  const after = pids.map(userAndTotal);
  // how often each process went to sleep per call: on a host whose idle vCPUs halt at once a sleep can end in a
  // wake-up through the hypervisor, and a path whose processes sleep more often per call loses more to them
  const sleepsPerProcess = pids.map(sleeps).map((n, i) => (n - sleepsBefore[i]) / calls);
  // and how many reads and writes it made per call: each costs a kernel entry, dearer on some hosts than on others
  // (the run's first line gives a system call's cost), and a path that batches more calls per write makes fewer
  const ioPerProcess = pids.map(io).map((n, i) => {
    const writes = n.writes - ioBefore[i].writes;
    return {
      reads: (n.reads - ioBefore[i].reads) / calls,
      writes: writes / calls,
      bytesPerWrite: (n.bytesWritten - ioBefore[i].bytesWritten) / writes,
    };
  });
  const perProcess = after.map((a, i) => (a.total - before[i].total) / calls);
  // the user-space part: what each side's own code costs, apart from its system calls and wake-ups, which a host's
  // kernel entries (page-table isolation, the hypervisor) make dearer on some hosts than on others
  const userPerProcess = after.map((a, i) => (a.user - before[i].user) / calls);
  const cpuPerCall = perProcess.reduce((a, b) => a + b, 0);
  const beforeSeq = pids.map(userAndTotal);
  const seqSleepsBefore = pids.map(sleeps);
  const seq = await caller.ask({ cmd: 'seq', n: STEADY_SEQ_CALLS, warm: STEADY_SEQ_WARM, size: SIZE });
  // CPU per sequential call (the warm-up's calls included), each process, and the user-space part of it: every path
  // here makes the same system calls per call, so the user part is each side's own code and the rest mostly what
  // its wake-ups cost (docs/performance.md, "CC–CF")
  const seqCalls = STEADY_SEQ_CALLS + STEADY_SEQ_WARM;
  const afterSeq = pids.map(userAndTotal);
  const seqPerProcess = afterSeq.map((after, i) => (after.total - beforeSeq[i].total) / seqCalls);
  const seqUserPerProcess = afterSeq.map((after, i) => (after.user - beforeSeq[i].user) / seqCalls);
  const seqSleepsPerProcess = pids.map(sleeps).map((n, i) => (n - seqSleepsBefore[i]) / seqCalls);
  return {
    p50: seq.p50,
    p99: seq.p99,
    coldP50: cold.p50,
    perSecond: tput.perSecond,
    cpuPerCall,
    perProcess,
    userPerProcess,
    seqPerProcess,
    seqUserPerProcess,
    sleepsPerProcess,
    seqSleepsPerProcess,
    ioPerProcess,
  };
}

/** A process's user and total CPU µs so far (NaN for both once it is gone). */
function userAndTotal(pid) {
  const times = cpuTimes(pid);
  return times === undefined ? { user: NaN, total: NaN } : times;
}

/** A process's voluntary context switches so far, over all its threads (NaN once it is gone). */
function sleeps(pid) {
  return contextSwitches(pid)?.voluntary ?? NaN;
}

/** A process's read and write system calls so far and their bytes (NaN once it is gone or they cannot be read). */
function io(pid) {
  return ioCalls(pid) ?? { reads: NaN, writes: NaN, bytesRead: NaN, bytesWritten: NaN };
}

/** The processes of a path, in the order `withPeer` lists their pids. */
const PROCESS_NAMES = {
  mol: ['executor broker', 'caller broker', 'nats-server'],
  relay: ['relay', 'executor', 'caller'],
};
const processNames = (kind, r) =>
  (PROCESS_NAMES[kind] ?? ['engine', 'executor', 'caller']).slice(0, r.perProcess.length);

function best(a, b) {
  if (a === undefined) return b;
  return {
    p50: Math.min(a.p50, b.p50),
    p99: Math.min(a.p99, b.p99),
    coldP50: Math.min(a.coldP50, b.coldP50),
    perSecond: Math.max(a.perSecond, b.perSecond),
    cpuPerCall: Math.min(a.cpuPerCall, b.cpuPerCall),
    perProcess: a.cpuPerCall <= b.cpuPerCall ? a.perProcess : b.perProcess,
    userPerProcess: a.cpuPerCall <= b.cpuPerCall ? a.userPerProcess : b.userPerProcess,
    sleepsPerProcess: a.cpuPerCall <= b.cpuPerCall ? a.sleepsPerProcess : b.sleepsPerProcess,
    ioPerProcess: a.cpuPerCall <= b.cpuPerCall ? a.ioPerProcess : b.ioPerProcess,
    seqPerProcess: a.p50 <= b.p50 ? a.seqPerProcess : b.seqPerProcess,
    seqUserPerProcess: a.p50 <= b.p50 ? a.seqUserPerProcess : b.seqUserPerProcess,
    seqSleepsPerProcess: a.p50 <= b.p50 ? a.seqSleepsPerProcess : b.seqSleepsPerProcess,
  };
}

const r2 = (x) => Math.round(x * 100) / 100;
const r3 = (x) => Math.round(x * 1000) / 1000;
const us = (x) => Math.round(x * 10) / 10;

/** One path's figures on one line: the round's own, or the best of the rounds (each figure from its best round). */
function describe(kind, r) {
  const names = processNames(kind, r);
  const each = (total, user) => names.map((name, i) => `${name} ${us(total[i])} (${us(user[i])})`).join(', ');
  const slept = (perCall) => names.map((name, i) => `${name} ${r2(perCall[i])}`).join(', ');
  const rw = (perCall) =>
    names
      .map((name, i) => {
        const { reads, writes, bytesPerWrite } = perCall[i];
        // a process that wrote nothing in the window (or whose counters could not be read) has no write size
        const size = Number.isFinite(bytesPerWrite) ? `${Math.round(bytesPerWrite)} B a write` : 'no writes';
        return `${name} ${r3(reads)}/${r3(writes)} (${size})`;
      })
      .join(', ');
  return (
    `p50 ${us(r.p50)} µs (first calls ${us(r.coldP50)}), ${Math.round(r.perSecond)} calls/s @256, ` +
    `${us(r.cpuPerCall)} µs CPU/call (user): ${each(r.perProcess, r.userPerProcess)}; ` +
    `sequential CPU µs/call (user) ${each(r.seqPerProcess, r.seqUserPerProcess)}; ` +
    `sleeps per call @256: ${slept(r.sleepsPerProcess)}; sequential: ${slept(r.seqSleepsPerProcess)}; ` +
    `reads/writes per call @256: ${rw(r.ioPerProcess)}`
  );
}

export async function run({ log = console.log } = {}) {
  const natsUp = await portOpen(Number(new URL(NATS_URL).port || 4222));
  if (!natsUp) log(`invoke-peers: no NATS at ${NATS_URL}: Moleculer rows skipped (scripts/services.sh starts one)`);
  const all = natsUp ? ['svc', 'mol', 'relay', 'iii'] : ['svc', 'relay', 'iii'];
  // BENCH_INVOKE_KINDS=svc,base: only those paths (base: the SDK build in BENCH_SDK_BASE, for an A/B of a lever)
  const kinds = process.env.BENCH_INVOKE_KINDS?.split(',') ?? all;
  log(`invoke-peers: ${kinds.join(', ')}; 100 B; best of ${ROUNDS} interleaved rounds`);
  const results = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of kinds) {
      const r = await withPeer(kind, measure);
      results[kind] = best(results[kind], r);
      log(`  round ${round + 1} ${kind}: ${describe(kind, r)}`);
    }
  }
  for (const kind of kinds) log(`  best of ${ROUNDS} ${kind}: ${describe(kind, results[kind])}`);
  if (process.env.BENCH_PROF === '1') {
    // the engine between our SDK's clients, and between iii-sdk's, each in a folder of its own
    for (const kind of kinds.filter((k) => k === 'svc' || k === 'iii')) {
      const dir = join(PROFILE_DIR, `engine-${kind}`);
      log(`invoke-peers: profiling the engine at 256 outstanding (${kind}) → ${dir}`);
      await withPeer(kind, (caller) => caller.ask({ cmd: 'tput', concurrency: 256, ms: 3000, size: SIZE }), {
        cpuProfDir: dir,
      });
    }
  }
  const { svc, mol, relay, iii, base } = results;
  const rows = [];
  if (base)
    rows.push({
      name: 'invoke 100B @256, this SDK vs base',
      value: Math.round(svc.perSecond),
      unit: 'calls/s',
      peer: 'base SDK',
      floor: Math.round(base.perSecond),
      ratio: r2(svc.perSecond / base.perSecond),
    });
  if (base)
    rows.push({
      name: 'invoke 100B p50, this SDK vs base',
      value: us(svc.p50),
      unit: 'µs',
      peer: 'base SDK',
      floor: us(base.p50),
      ratio: r2(svc.p50 / base.p50),
    });
  if (!relay || !svc) return rows;
  const calls = (name, value, peer, peerValue, target) => ({
    name,
    value: Math.round(value),
    unit: 'calls/s',
    peer,
    floor: Math.round(peerValue),
    ratio: r2(value / peerValue),
    target,
  });
  if (mol) {
    rows.push(calls('invoke 100B @256, our SDK both ends', svc.perSecond, 'Moleculer/NATS', mol.perSecond, '≥ 1.5'));
    if (iii) {
      rows.push(calls('invoke 100B @256, iii-sdk both ends', iii.perSecond, 'Moleculer/NATS', mol.perSecond, '≥ 1.0'));
    }
    // the rate targets restated as CPU per call: every process of each path, Moleculer's NATS server included
    const natsCounted = mol.perProcess.length === 3;
    const cpu = (name, value, target, peer = mol.cpuPerCall, counted = natsCounted) => ({
      name,
      value: us(value),
      unit: 'µs CPU/call',
      peer: counted ? 'Moleculer/NATS (brokers + nats-server)' : 'Moleculer/NATS (brokers only)',
      floor: us(peer),
      ratio: r2(value / peer),
      target,
    });
    rows.push(cpu('invoke 100B @256 CPU per call, our SDK both ends + engine', svc.cpuPerCall, '≤ 0.67'));
    if (iii) rows.push(cpu('invoke 100B @256 CPU per call, iii-sdk both ends + engine', iii.cpuPerCall, '≤ 1.0'));
    if (natsCounted) {
      const brokers = mol.perProcess[0] + mol.perProcess[1];
      const name = 'invoke 100B @256 CPU per call, our SDK both ends + engine, vs the brokers alone (for reference)';
      rows.push(cpu(name, svc.cpuPerCall, undefined, brokers, false));
    }
  }
  rows.push({
    name: 'invoke 100B sequential p50 (steady state), our SDK both ends',
    value: us(svc.p50),
    unit: 'µs',
    peer: 'ws JSON relay',
    floor: us(relay.p50),
    ratio: r2(svc.p50 / relay.p50),
    target: '≤ 1.0',
  });
  rows.push({
    name: 'invoke 100B sequential p50 of fresh processes (first 1,000 calls after 200), our SDK both ends',
    value: us(svc.coldP50),
    unit: 'µs',
    peer: 'ws JSON relay',
    floor: us(relay.coldP50),
    ratio: r2(svc.coldP50 / relay.coldP50),
  });
  if (mol) {
    rows.push({
      name: 'invoke 100B sequential p50 (steady state), Moleculer/NATS (for reference)',
      value: us(mol.p50),
      unit: 'µs',
    });
  }
  return rows;
}

runWhenCalledDirectly(import.meta.url, run);
