// Observability benchmark: invoke throughput at 256 outstanding calls (raw caller → engine → raw executor, 100 B)
// with tracing off (OtelModule enabled: false) against tracing on (ratio 1.0, memory exporter, metrics on), in
// the same run: both engines run side by side and are driven in alternating slices (BENCH_OBS_SLICES of
// BENCH_OBS_MS each); then the memory of the engine and of svc-otel once `memory_max_spans` is full. Target: on/off ≥ 0.85. Run by scripts/bench/run.mjs. With BENCH_PROF=1 every engine runs under
// --cpu-prof (profiles in bench-results/profiles/, named obs-on-* / obs-off-*; summarise one with
// `node scripts/bench/profile-summary.mjs <file>`).
import { fork, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { freePort, probe, round2, waitUntil } from './lib/net.mjs';
import { cpuMicros } from './lib/process-cpu.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '../..');
const ROLES = join(HERE, 'invoke/roles.mjs');
/** Slices per configuration, each `SLICE_MS` measured after `WARM_MS` of unmeasured calls, then a pause. */
const SLICES = Number(process.env.BENCH_OBS_SLICES ?? 12);
const SLICE_MS = Number(process.env.BENCH_OBS_MS ?? 600);
const WARM_MS = 100;
const PAUSE_MS = 150;
const MAX_SPANS = 10_000;
const PROFILE_DIR = join(ROOT, 'bench-results/profiles');

function role(name, url) {
  const child = fork(ROLES, [name, url], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`bench role ${name} exited with ${code}`)));
  });
  const ask = (cmd) =>
    new Promise((resolve) => {
      child.once('message', resolve);
      child.send(cmd);
    });
  return { ready, ask, pid: child.pid, stop: () => child.kill('SIGKILL') };
}

function configYaml(port, tracing) {
  return [
    `port: ${port}`,
    'log_level: warn',
    'modules:',
    '  - class: modules::observability::OtelModule',
    '    config:',
    `      enabled: ${tracing}`,
    '      exporter: memory',
    '      logs_exporter: memory',
    '      metrics_exporter: memory',
    '      sampling_ratio: 1.0',
    `      memory_max_spans: ${MAX_SPANS}`,
    '',
  ].join('\n');
}

async function startEngine(tracing) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-obs-'));
  const config = join(dir, 'svc-config.yaml');
  writeFileSync(config, configYaml(port, tracing));
  const prof =
    process.env.BENCH_PROF === '1'
      ? [
          '--cpu-prof',
          `--cpu-prof-dir=${PROFILE_DIR}`,
          `--cpu-prof-name=obs-${tracing ? 'on' : 'off'}-${Date.now()}.cpuprofile`,
        ]
      : [];
  const proc = spawn(process.execPath, [...prof, join(ROOT, 'cli/dist/main.js'), '-c', config], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((r) => proc.once('exit', r));
  const stop = () => {
    proc.kill('SIGTERM');
    return exited.finally(() => rmSync(dir, { recursive: true, force: true }));
  };
  const url = `ws://127.0.0.1:${port}`;
  try {
    await waitUntil(() => probe(url), 20_000);
    if (tracing) await waitUntil(async () => (await ready(port)).status === 200, 20_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, port, pid: proc.pid, stop };
}

async function ready(port) {
  try {
    const res = await globalThis.fetch(`http://127.0.0.1:${port}/ready`);
    return { status: res.status, body: await res.json() };
  } catch {
    return { status: 0, body: {} };
  }
}

function rssMiB(pid) {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return round2(kb / 1024);
  } catch {
    return undefined;
  }
}

/** One engine with one executor and one caller on it, ready to be driven. */
async function stack(tracing) {
  const engine = await startEngine(tracing);
  const executor = role('executor', engine.url);
  const caller = role('caller', engine.url);
  try {
    await executor.ready;
    await caller.ready;
  } catch (err) {
    await engine.stop();
    throw err;
  }
  const otelPid = tracing ? (await ready(engine.port)).body.workers?.find((w) => w.name === 'svc-otel')?.pid : 0;
  const pids = { engine: engine.pid, 'svc-otel': otelPid, caller: caller.pid, executor: executor.pid };
  return {
    tracing,
    engine,
    caller,
    pids,
    calls: 0,
    seconds: 0,
    cpu: Object.fromEntries(Object.keys(pids).map((k) => [k, 0])),
    stop: async () => {
      caller.stop();
      executor.stop();
      await engine.stop();
    },
  };
}

/** One slice of `ms` at 256 outstanding on `s`, its calls and each process's CPU added to the stack's totals. */
async function slice(s, ms) {
  const before = Object.fromEntries(Object.entries(s.pids).map(([k, pid]) => [k, pid ? cpuMicros(pid) : 0]));
  const { perSecond } = await s.caller.ask({ cmd: 'tput', concurrency: 256, ms, size: 100, warmMs: WARM_MS });
  for (const [k, pid] of Object.entries(s.pids)) if (pid) s.cpu[k] += ((cpuMicros(pid) ?? 0) - before[k]) / 1000;
  s.calls += (perSecond * ms) / 1000;
  s.seconds += ms / 1000;
  return perSecond;
}

/** calls/s over every slice, and CPU ms per 1000 calls of each process (its slices' warm-ups counted in the CPU). */
function summary(s) {
  const cpu = Object.entries(s.cpu)
    .filter(([k]) => s.pids[k])
    .map(([k, ms]) => `${k} ${((ms * 1000) / s.calls).toFixed(1)}`)
    .join(', ');
  return { perSecond: s.calls / s.seconds, cpu };
}

/** Spans stored by svc-otel, asked over a WebSocket as any worker would. */
function otelStatus(url) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const id = '5b9d7b52-1d0e-4f3a-9d7e-8b9b7f1e0c11';
    ws.on('message', (raw) => {
      const msg = JSON.parse(String(raw));
      if (msg.type === 'workerregistered') {
        ws.send(JSON.stringify({ type: 'invokefunction', invocation_id: id, function_id: 'otel::status', data: {} }));
      } else if (msg.type === 'invocationresult' && msg.invocation_id === id) {
        ws.close();
        resolve(msg.result);
      }
    });
    ws.on('error', reject);
  });
}

export async function run({ log }) {
  // Both engines run side by side, driven in turn (off, on, off, …) in short slices with a pause after each, so
  // the host's drift over seconds (this machine's speed moves by a third from one run to the next) falls on both
  // alike. An idle stack costs nothing; the pause lets the driven one finish its tail (the last span batch leaves
  // 100 ms after its first span) before the other starts.
  const off = await stack(false);
  const on = await stack(true);
  const pairs = [];
  try {
    for (let i = 0; i < SLICES; i++) {
      const a = await slice(off, SLICE_MS);
      await sleep(PAUSE_MS);
      const b = await slice(on, SLICE_MS);
      await sleep(PAUSE_MS);
      pairs.push(b / a);
    }
    for (const s of [off, on]) {
      const { perSecond, cpu } = summary(s);
      log(`tracing ${s.tracing ? 'on ' : 'off'}: ${Math.round(perSecond)} calls/s (CPU ms per 1000 calls: ${cpu})`);
    }
    pairs.sort((x, y) => x - y);
    log(
      `on/off per pair of slices: median ${round2(pairs[Math.floor(pairs.length / 2)])}, ` +
        `range ${round2(pairs[0])}-${round2(pairs[pairs.length - 1])}`,
    );
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline && (await otelStatus(on.engine.url)).spans.count < MAX_SPANS) {
      await on.caller.ask({ cmd: 'tput', concurrency: 256, ms: 2000, size: 100 });
    }
    await sleep(1500); // the last batches reach svc-otel
    const status = await otelStatus(on.engine.url);
    const { body } = await ready(on.engine.port);
    const otelPid = body.workers?.find((w) => w.name === 'svc-otel')?.pid;
    const memory = { spans: status.spans.count, engine: rssMiB(on.engine.pid), otel: otelPid && rssMiB(otelPid) };
    log(
      `spans stored ${status.spans.count}/${status.spans.max}; engine RSS ${memory.engine} MiB, svc-otel ${memory.otel} MiB ` +
        `(the tracing-off engine: ${rssMiB(off.engine.pid)} MiB)`,
    );
    const floor = Math.round(summary(off).perSecond);
    const value = Math.round(summary(on).perSecond);
    return [
      { name: 'invoke tput, 256 outstanding, tracing off', value: floor, unit: 'calls/s' },
      {
        name: 'invoke tput, 256 outstanding, tracing on (ratio 1.0, memory)',
        value,
        unit: 'calls/s',
        floor,
        ratio: round2(value / floor),
        target: '≥ 0.85',
      },
      { name: `engine RSS, memory_max_spans full (${memory.spans} spans)`, value: memory.engine, unit: 'MiB' },
      { name: `svc-otel RSS, memory_max_spans full (${memory.spans} spans)`, value: memory.otel, unit: 'MiB' },
    ];
  } finally {
    await Promise.all([off.stop(), on.stop()]);
  }
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}
