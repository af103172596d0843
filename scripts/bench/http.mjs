/**
 * HTTP benchmark: requests/s and latency (p50, p99) of GET /bench/hello through svc-http → engine → worker → back,
 * driven by autocannon at 100 connections, beside a plain node http server answering the same JSON in one process
 * (the floor), and beside moleculer-web in front of Moleculer 0.14 over NATS (the peer; skipped without NATS at
 * 127.0.0.1:4222), measured in the same run. Targets: ≥ 0.5× the floor's requests/s and ≥ 2.5× moleculer-web's,
 * p99 ≤ 3× the floor's. It also prints the CPU per request of each process on the path, of the bare server and of
 * autocannon (which runs in this process, on the same cores), and rows with the path's CPU per request against the
 * bare server's and against moleculer-web's path (its gateway, its service broker and the NATS server, when that runs
 * on this machine): the request rates share the cores with the load generator, the CPU figures do not. A line gives
 * each process's read and write system calls per request on the three paths (`/proc/<pid>/io`). With BENCH_PROF=1,
 * svc-http, the engine and the bench worker run under --cpu-prof (profiles in bench-results/profiles/, named
 * svc-http-*, engine-*, bench-worker-*; scripts/bench/profile-summary.mjs sums them).
 *
 *   node scripts/bench/http.mjs            (after `npm run build`; BENCH_HTTP_SECONDS=8 per round by default)
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { freePort, portOpen } from './lib/net.mjs';
import { natsServerPid, start, startHttpPath, waitForStatus } from './lib/processes.mjs';
import { runWhenCalledDirectly } from './lib/main.mjs';
import { cpuMicros, ioCalls } from './lib/process-cpu.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 8);
/** An unmeasured first load of every side (floor, svc, moleculer-web), so no measured round compiles code paths. */
const WARM_SECONDS = Number(process.env.BENCH_HTTP_WARM_SECONDS ?? 3);
const ROUNDS = 2;
const CONNECTIONS = 100;

const PROFILE_DIR = join(ROOT, 'bench-results/profiles');
/** With BENCH_PROF=1, node's --cpu-prof for one process of the path (`name` prefixes its .cpuprofile file). */
const profiled = (name) =>
  process.env.BENCH_PROF === '1'
    ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${name}.cpuprofile`]
    : [];

/**
 * Starts counting the CPU of `pids` and of this process (`generator`: autocannon runs here); the function it returns
 * gives each one's µs per request over `requests` (a process /proc cannot read is left out).
 */
function measureCpu(pids) {
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuMicros(pid) ?? NaN]));
  const generatorBefore = process.cpuUsage();
  return (requests) => {
    const generator = process.cpuUsage(generatorBefore);
    const used = { generator: (generator.user + generator.system) / requests };
    for (const [k, pid] of Object.entries(pids)) {
      const micros = (cpuMicros(pid) ?? NaN) - before[k];
      if (Number.isFinite(micros)) used[k] = micros / requests;
    }
    return used;
  };
}

/**
 * Starts counting the read and write system calls of `pids`; the function it returns adds each one's per request
 * over `requests` to `sums` (a process /proc cannot read is left out).
 */
function measureIo(pids) {
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, ioCalls(pid)]));
  return (requests, sums) => {
    for (const [k, pid] of Object.entries(pids)) {
      const after = ioCalls(pid);
      if (after === undefined || before[k] === undefined) continue;
      const sum = (sums[k] ??= { reads: 0, writes: 0 });
      sum.reads += (after.reads - before[k].reads) / requests;
      sum.writes += (after.writes - before[k].writes) / requests;
    }
  };
}

/** Each process's reads and writes per request, averaged over the rounds summed in `sums`. */
const ioNote = (sums) =>
  Object.entries(sums)
    .map(([k, { reads, writes }]) => `${k} ${(reads / ROUNDS).toFixed(2)}/${(writes / ROUNDS).toFixed(2)}`)
    .join(', ');

function load(url, duration = SECONDS) {
  return new Promise((res, rej) => {
    autocannon({ url, connections: CONNECTIONS, duration }, (err, result) => (err ? rej(err) : res(result)));
  });
}

function average(runs) {
  const mean = (key) => runs.reduce((sum, r) => sum + r[key], 0) / runs.length;
  return { rps: mean('rps'), p50: mean('p50'), p99: mean('p99'), errors: runs.reduce((n, r) => n + r.errors, 0) };
}

function summary(result) {
  const errors = result.errors + result.timeouts + (result.non2xx ?? 0);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors };
}

/**
 * moleculer-web's gateway and a service broker over NATS: the URL to load and the pids whose CPU is its path's (the
 * NATS server's when it runs here); undefined (and a log line) when NATS is absent.
 */
async function startMoleculerWeb(procs, log) {
  if (!(await portOpen(4222))) {
    log('  no NATS at 127.0.0.1:4222: the moleculer-web row is skipped (scripts/services.sh starts one)');
    return undefined;
  }
  const service = start('scripts/bench/http-moleculer.mjs', ['service'], {}, 'ready');
  procs.push(service);
  await service.ready;
  const port = await freePort();
  const gateway = start('scripts/bench/http-moleculer.mjs', ['gateway'], { PORT: String(port) }, 'listening');
  procs.push(gateway);
  await gateway.ready;
  const url = `http://127.0.0.1:${port}/bench/hello`;
  await waitForStatus(url, 200);
  const pids = { gateway: gateway.proc.pid, service: service.proc.pid };
  const nats = natsServerPid();
  return { url, pids: nats === undefined ? pids : { ...pids, 'nats-server': nats } };
}

export async function run({ log = console.log } = {}) {
  const procs = [];
  try {
    const floorPort = await freePort();
    const floor = start('scripts/bench/http-floor-server.mjs', [], { PORT: String(floorPort) }, 'listening');
    procs.push(floor);
    await floor.ready;
    const {
      engine,
      http,
      worker,
      url: svcTarget,
    } = await startHttpPath(procs, {
      engine: profiled('engine'),
      http: profiled('svc-http'),
      worker: profiled('bench-worker'),
    });
    const mol = await startMoleculerWeb(procs, log);
    const molTarget = mol?.url;

    // Two alternating rounds (floor, svc, floor, svc), averaged: a machine whose load changes during the run
    // then weighs on both sides alike. Each side is warmed up first, unmeasured.
    log(
      `http bench: ${CONNECTIONS} connections, ${WARM_SECONDS} s of warm-up, then ${ROUNDS} alternating rounds ` +
        `of ${SECONDS} s per side`,
    );
    for (const target of [`http://127.0.0.1:${floorPort}/`, svcTarget, molTarget]) {
      if (target !== undefined && WARM_SECONDS > 0) await load(target, WARM_SECONDS);
    }
    const floorRuns = [];
    const svcRuns = [];
    /**
     * µs of CPU per request of each process on the path, of the bare server, and of this process (autocannon) beside
     * each, summed over rounds (averaged below): the load generator shares the two cores with what it measures.
     */
    const cpuPerRequest = {};
    const floorCpu = { server: 0, generator: 0 };
    let generatorBesideSvc = 0;
    const molRuns = [];
    /** The same for moleculer-web's path, summed over rounds. */
    const molCpu = {};
    /** Read and write system calls per request of each process, summed over rounds, for the three paths. */
    const io = { floor: {}, svc: {}, mol: {} };
    for (let round = 0; round < ROUNDS; round++) {
      const floorUsage = measureCpu({ server: floor.proc.pid });
      const floorIo = measureIo({ 'the bare server': floor.proc.pid });
      const floorResult = await load(`http://127.0.0.1:${floorPort}/`);
      floorIo(floorResult.requests.total, io.floor);
      floorRuns.push(summary(floorResult));
      const floorUsed = floorUsage(floorResult.requests.total);
      floorCpu.server += floorUsed.server ?? NaN;
      floorCpu.generator += floorUsed.generator;
      const svcPids = { 'svc-http': http.proc.pid, engine: engine.proc.pid, worker: worker.proc.pid };
      const svcUsage = measureCpu(svcPids);
      const svcIo = measureIo(svcPids);
      const result = await load(svcTarget);
      svcIo(result.requests.total, io.svc);
      svcRuns.push(summary(result));
      const { generator, ...path } = svcUsage(result.requests.total);
      generatorBesideSvc += generator;
      for (const [k, us] of Object.entries(path)) cpuPerRequest[k] = (cpuPerRequest[k] ?? 0) + us;
      if (mol !== undefined) {
        const molUsage = measureCpu(mol.pids);
        const molIo = measureIo(mol.pids);
        const molResult = await load(mol.url);
        molIo(molResult.requests.total, io.mol);
        molRuns.push(summary(molResult));
        const { generator: _, ...molPath } = molUsage(molResult.requests.total);
        for (const [k, us] of Object.entries(molPath)) molCpu[k] = (molCpu[k] ?? 0) + us;
      }
    }
    const f = average(floorRuns);
    const s = average(svcRuns);
    const m = molRuns.length > 0 ? average(molRuns) : undefined;
    const molPathCpu = Object.values(molCpu).reduce((sum, us) => sum + us, 0) / ROUNDS;
    if (m !== undefined) {
      const parts = Object.entries(molCpu).map(([k, us]) => `${k} ${(us / ROUNDS).toFixed(0)}`);
      const cpuNote = parts.length > 0 ? `; CPU per request (µs, user + system): ${parts.join(', ')}` : '';
      log(`  moleculer-web → Moleculer/NATS: ${m.rps.toFixed(0)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms${cpuNote}`);
    }
    log(`  floor (node http): ${f.rps.toFixed(0)} req/s, p50 ${f.p50} ms, p99 ${f.p99} ms, errors ${f.errors}`);
    log(
      `  svc-http → engine → worker: ${s.rps.toFixed(0)} req/s, p50 ${s.p50} ms, p99 ${s.p99} ms, errors ${s.errors}`,
    );
    const cpu = Object.entries(cpuPerRequest).map(([k, us]) => `${k} ${(us / ROUNDS).toFixed(0)}`);
    const pathCpu = Object.values(cpuPerRequest).reduce((sum, us) => sum + us, 0) / ROUNDS;
    const bareCpu = floorCpu.server / ROUNDS;
    if (cpu.length > 0) {
      const bare = Number.isFinite(bareCpu) ? `; the bare server ${bareCpu.toFixed(0)}` : '';
      log(
        `  CPU per request (µs, user + system): ${cpu.join(', ')}${bare}; autocannon (this process) ` +
          `${(floorCpu.generator / ROUNDS).toFixed(0)} beside the bare server, ` +
          `${(generatorBesideSvc / ROUNDS).toFixed(0)} beside svc-http`,
      );
    }
    // a system call's cost differs from host to host (the run's first line gives it): how many each process makes per
    // request, reads and writes on its sockets, says how much of its CPU they can be
    if (Object.keys(io.svc).length > 0) {
      const others = [ioNote(io.floor), Object.keys(io.mol).length > 0 ? `moleculer-web's path: ${ioNote(io.mol)}` : '']
        .filter((note) => note !== '')
        .join('; ');
      log(`  reads/writes per request: ${ioNote(io.svc)}${others === '' ? '' : `; ${others}`}`);
    }
    const round = (x) => Math.round(x * 100) / 100;
    const rpsRatio = round(s.rps / f.rps);
    const p99Ratio = round(s.p99 / Math.max(f.p99, 1));
    log(`  ratio: ${rpsRatio.toFixed(2)}× floor req/s (target ≥ 0.5), p99 ${p99Ratio.toFixed(2)}× floor (target ≤ 3)`);
    const peerRows =
      m === undefined
        ? []
        : [
            {
              name: 'http req/s (100 connections)',
              value: Math.round(s.rps),
              unit: 'req/s',
              peer: 'moleculer-web',
              floor: Math.round(m.rps),
              ratio: round(s.rps / m.rps),
              target: '≥ 2.5',
            },
          ];
    /** Our path's CPU per request against a peer's, a row without a target; none when either was not measured. */
    const cpuRow = (name, peer, peerCpu) =>
      cpu.length > 0 && Number.isFinite(peerCpu) && peerCpu > 0
        ? [
            {
              name,
              value: Math.round(pathCpu * 10) / 10,
              unit: 'µs',
              peer,
              floor: Math.round(peerCpu * 10) / 10,
              ratio: round(pathCpu / peerCpu),
            },
          ]
        : [];
    return [
      {
        name: 'http req/s (100 connections)',
        value: Math.round(s.rps),
        unit: 'req/s',
        peer: 'bare node http',
        floor: Math.round(f.rps),
        ratio: rpsRatio,
        target: '≥ 0.5',
      },
      ...peerRows,
      ...cpuRow('http CPU per request, svc-http + engine + worker', 'bare node http', bareCpu),
      ...cpuRow(
        'http CPU per request, svc-http + engine + worker, vs moleculer-web + broker + nats-server',
        'moleculer-web',
        molPathCpu,
      ),
      { name: 'http p50 latency', value: s.p50, unit: 'ms', floor: f.p50, ratio: round(s.p50 / Math.max(f.p50, 1)) },
      { name: 'http p99 latency', value: s.p99, unit: 'ms', floor: f.p99, ratio: p99Ratio, target: '≤ 3' },
      { name: 'http errors (timeouts, non-2xx)', value: s.errors, unit: 'count' },
    ];
  } finally {
    for (const p of procs.reverse()) await p.stop();
  }
}

runWhenCalledDirectly(import.meta.url, run);
