// Cluster benchmark (engines joined over NATS, docs/cluster.md), in one run:
//   cross-engine call   caller → engine A → NATS → engine B → executor, sequential p50/p99, against
//   local call          the same call within engine A (same engines, same processes kind), as its floor;
//   aggregate           3 engines (a caller and an executor on each, the function replicated on all three,
//                       256 calls outstanding per caller) against 1 engine (one caller, one executor, 256).
//                       Each caller warms for 4 s first (BENCH_CLUSTER_WARM_MS): nine fresh processes on two
//                       cores take seconds to reach their rate (docs/cluster.md, "The aggregate measured warm").
// Needs nats-server on 127.0.0.1:4222 (skipped otherwise). Roles are the invoke benchmark's raw ws processes.
import { Buffer } from 'node:buffer';
import { fork, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { connect } from 'nats';
import WebSocket from 'ws';
import { freePort, portOpen, probe, round2, waitUntil } from './lib/net.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '../..');
const ROLES = join(HERE, 'invoke/roles.mjs');
const CLI = join(ROOT, 'cli/dist/main.js');
const SEQ_CALLS = Number(process.env.BENCH_SEQ_CALLS ?? 1000);
const TPUT_MS = Number(process.env.BENCH_TPUT_MS ?? 1500);
const WARM_MS = Number(process.env.BENCH_CLUSTER_WARM_MS ?? 4000);
const SIZE = 100;

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
  return { ready, ask, stop: () => child.kill('SIGKILL') };
}

/** An engine started by the `svc` command with `cluster` in its config (none: a lone engine). */
async function startEngine(cluster) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-cluster-'));
  const config = join(dir, 'svc-config.yaml');
  const clusterYaml = cluster
    ? `cluster: { nats: "nats://127.0.0.1:4222", name: ${cluster}, heartbeat_interval_ms: 500 }\n`
    : '';
  writeFileSync(config, `port: ${port}\nlog_level: warn\n${clusterYaml}modules: []\n`);
  const proc = spawn(process.execPath, [CLI, '-c', config], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `ws://127.0.0.1:${port}`;
  await waitUntil(() => probe(url), 20000);
  return { url, stop: () => (proc.kill('SIGKILL'), rmSync(dir, { recursive: true, force: true })) };
}

function rawCall(url, functionId, data = {}) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const id = randomUUID();
    ws.on('open', () =>
      ws.send(JSON.stringify({ type: 'invokefunction', invocation_id: id, function_id: functionId, data })),
    );
    ws.on('message', (raw) => {
      const msg = JSON.parse(String(raw));
      if (msg.type !== 'invocationresult' || msg.invocation_id !== id) return;
      ws.close();
      resolve(msg);
    });
    ws.on('error', reject);
  });
}

/** Waits until `url` sees `replicas` replicas of bench::echo across the cluster. */
async function waitReplicas(url, replicas) {
  await waitUntil(async () => {
    const { result } = await rawCall(url, 'engine::functions::list', { prefix: 'bench::' });
    return result?.functions?.find((f) => f.function_id === 'bench::echo')?.replicas === replicas;
  }, 20000);
}

async function latency(engines, log) {
  const [a, b] = engines;
  const remoteExec = role('executor', b.url);
  const caller = role('caller', a.url);
  await Promise.all([remoteExec.ready, caller.ready]);
  await waitReplicas(a.url, 1);
  const cross = await caller.ask({ cmd: 'seq', n: SEQ_CALLS, size: SIZE });
  log(`cross-engine p50 ${round2(cross.p50)} µs, p99 ${round2(cross.p99)} µs`);
  const localExec = role('executor', a.url);
  await localExec.ready;
  remoteExec.stop();
  await waitReplicas(a.url, 1);
  await new Promise((r) => setTimeout(r, 1500)); // B's departure announced everywhere
  const local = await caller.ask({ cmd: 'seq', n: SEQ_CALLS, size: SIZE });
  log(`same-engine p50 ${round2(local.p50)} µs, p99 ${round2(local.p99)} µs`);
  caller.stop();
  localExec.stop();
  const nats = await natsRoundTrip();
  log(`NATS request/reply alone p50 ${round2(nats.p50)} µs, p99 ${round2(nats.p99)} µs`);
  return [
    {
      name: 'cross-engine call p50 (A→NATS→B)',
      value: round2(cross.p50),
      unit: 'µs',
      floor: round2(local.p50),
      ratio: round2(cross.p50 / local.p50),
    },
    {
      name: 'cross-engine call p99 (A→NATS→B)',
      value: round2(cross.p99),
      unit: 'µs',
      floor: round2(local.p99),
      ratio: round2(cross.p99 / local.p99),
    },
    {
      // what a cross-engine call cannot go below: one NATS round trip on top of the local path
      name: 'NATS request/reply alone p50 (nats.js → nats-server → nats.js), vs the same-engine call',
      value: round2(nats.p50),
      unit: 'µs',
      floor: round2(local.p50),
      ratio: round2(nats.p50 / local.p50),
    },
  ];
}

/** Sequential request/reply between two nats.js processes through nats-server: the floor under a cross-engine hop. */
async function natsRoundTrip() {
  const child = fork(join(HERE, 'nats-echo-child.mjs'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  await new Promise((resolve) => child.once('message', resolve));
  const nc = await connect({ servers: '127.0.0.1:4222' });
  try {
    const payload = Buffer.from(JSON.stringify({ data: 'x'.repeat(SIZE) }));
    for (let i = 0; i < 200; i++) await nc.request('bench.nats.echo', payload, { timeout: 5000 }); // warm-up
    const times = [];
    for (let i = 0; i < SEQ_CALLS; i++) {
      const t = performance.now();
      await nc.request('bench.nats.echo', payload, { timeout: 5000 });
      times.push((performance.now() - t) * 1000);
    }
    times.sort((x, y) => x - y);
    return { p50: times[Math.floor(times.length / 2)], p99: times[Math.floor(times.length * 0.99)] };
  } finally {
    await nc.close();
    child.disconnect();
  }
}

async function throughput(urls, log) {
  const executors = urls.map((u) => role('executor', u));
  const callers = urls.map((u) => role('caller', u));
  await Promise.all([...executors, ...callers].map((r) => r.ready));
  for (const u of urls) await waitReplicas(u, urls.length);
  const answers = await Promise.all(
    callers.map((c) => c.ask({ cmd: 'tput', concurrency: 256, ms: TPUT_MS, size: SIZE, warmMs: WARM_MS })),
  );
  for (const r of [...executors, ...callers]) r.stop();
  const total = answers.reduce((sum, a) => sum + a.perSecond, 0);
  log(`${urls.length} engine(s): ${Math.round(total)} calls/s at 256 outstanding per caller`);
  return total;
}

export async function run({ log }) {
  if (!(await portOpen(4222))) {
    log('skipped: nats-server is not reachable on 127.0.0.1:4222');
    return [];
  }
  const name = `bench${randomUUID().slice(0, 8)}`;
  const engines = [];
  try {
    for (let i = 0; i < 3; i++) engines.push(await startEngine(name));
    const rows = await latency(engines, log);
    const lone = await startEngine(undefined);
    engines.push(lone);
    const one = await throughput([lone.url], log);
    const three = await throughput(
      engines.slice(0, 3).map((e) => e.url),
      log,
    );
    rows.push(
      { name: 'throughput, 1 engine, 256 outstanding', value: Math.round(one), unit: 'calls/s' },
      {
        name: 'throughput, 3 engines (replicas on each), 256 outstanding per caller',
        value: Math.round(three),
        unit: 'calls/s',
        floor: Math.round(one),
        ratio: round2(three / one),
      },
    );
    return rows;
  } finally {
    for (const e of engines) e.stop();
  }
}
