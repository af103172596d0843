/* global clearTimeout, fetch */
/**
 * HTTP benchmark: requests/s and latency (p50, p99) of GET /bench/hello through svc-http → engine → worker → back,
 * driven by autocannon at 100 connections, beside a plain node http server answering the same JSON in one process
 * (the floor), measured in the same run. Targets: ≥ 0.4× the floor's requests/s, p99 ≤ 3× the floor's.
 *
 *   node scripts/bench/http.mjs            (after `npm run build`; BENCH_HTTP_SECONDS=8 per round by default)
 */
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { freePort } from './lib/net.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 8);
const ROUNDS = 2;
const CONNECTIONS = 100;

function start(script, args, env, readyText) {
  const proc = spawn(process.execPath, [join(ROOT, script), ...args], {
    cwd: ROOT,
    env: { ...process.env, SVC_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const ready = new Promise((res, rej) => {
    if (readyText === undefined) res();
    const timer = setTimeout(() => rej(new Error(`${script} not ready in 15 s:\n${out}`)), 15000);
    if (readyText === undefined) clearTimeout(timer);
    const onData = (chunk) => {
      out += chunk;
      if (readyText !== undefined && out.includes(readyText)) {
        clearTimeout(timer);
        res();
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (code) => rej(new Error(`${script} exited with ${code}:\n${out}`)));
  });
  const stop = () =>
    new Promise((res) => {
      if (proc.exitCode !== null) return res();
      proc.once('exit', () => res());
      proc.kill('SIGTERM');
      setTimeout(() => proc.kill('SIGKILL'), 5000).unref();
    });
  return { proc, ready, stop };
}

async function waitForStatus(url, status, timeoutMs = 10000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status === status) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function load(url) {
  return new Promise((res, rej) => {
    autocannon({ url, connections: CONNECTIONS, duration: SECONDS }, (err, result) => (err ? rej(err) : res(result)));
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

export async function run({ log = console.log } = {}) {
  const procs = [];
  try {
    const floorPort = await freePort();
    const floor = start('scripts/bench/http-floor-server.mjs', [], { PORT: String(floorPort) }, 'listening');
    procs.push(floor);
    const enginePort = await freePort();
    const engine = start('engine/dist/main.js', ['--port', String(enginePort), '--log-level', 'warn'], {});
    procs.push(engine);
    const svcUrl = `ws://127.0.0.1:${enginePort}`;
    const httpPort = await freePort();
    await floor.ready;
    // The engine logs nothing at warn on start: wait for its port by letting svc-http connect (it retries).
    const http = start(
      'workers/http/dist/main.js',
      [],
      {
        SVC_URL: svcUrl,
        SVC_LOG_LEVEL: 'info',
        SVC_MODULE_CONFIG: JSON.stringify({ host: '127.0.0.1', port: httpPort }),
      },
      'svc-http listening',
    );
    procs.push(http);
    await http.ready;
    const worker = start('scripts/bench/http-bench-worker.mjs', [], { SVC_URL: svcUrl }, 'ready');
    procs.push(worker);
    await worker.ready;
    const svcTarget = `http://127.0.0.1:${httpPort}/bench/hello`;
    await waitForStatus(svcTarget, 200);

    // Two alternating rounds (floor, svc, floor, svc), averaged: a machine whose load changes during the run
    // then weighs on both sides alike.
    log(`http bench: ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${SECONDS} s per side`);
    const floorRuns = [];
    const svcRuns = [];
    for (let round = 0; round < ROUNDS; round++) {
      floorRuns.push(summary(await load(`http://127.0.0.1:${floorPort}/`)));
      svcRuns.push(summary(await load(svcTarget)));
    }
    const f = average(floorRuns);
    const s = average(svcRuns);
    log(`  floor (node http): ${f.rps.toFixed(0)} req/s, p50 ${f.p50} ms, p99 ${f.p99} ms, errors ${f.errors}`);
    log(
      `  svc-http → engine → worker: ${s.rps.toFixed(0)} req/s, p50 ${s.p50} ms, p99 ${s.p99} ms, errors ${s.errors}`,
    );
    const round = (x) => Math.round(x * 100) / 100;
    const rpsRatio = round(s.rps / f.rps);
    const p99Ratio = round(s.p99 / Math.max(f.p99, 1));
    log(`  ratio: ${rpsRatio.toFixed(2)}× floor req/s (target ≥ 0.4), p99 ${p99Ratio.toFixed(2)}× floor (target ≤ 3)`);
    return [
      {
        name: 'http req/s (100 connections)',
        value: Math.round(s.rps),
        unit: 'req/s',
        floor: Math.round(f.rps),
        ratio: rpsRatio,
      },
      { name: 'http p50 latency', value: s.p50, unit: 'ms', floor: f.p50, ratio: round(s.p50 / Math.max(f.p50, 1)) },
      { name: 'http p99 latency', value: s.p99, unit: 'ms', floor: f.p99, ratio: p99Ratio },
      { name: 'http errors (timeouts, non-2xx)', value: s.errors, unit: 'count' },
    ];
  } finally {
    for (const p of procs.reverse()) await p.stop();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  run().then(
    (rows) => console.table(rows),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
