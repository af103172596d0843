/* global URL */
/**
 * Events (pubsub) benchmark: `publish {topic, data}` → delivered to every `subscribe` binding, with 1 and 10
 * subscriber bindings (in one subscriber worker process; the engine runs in its own process, the publisher is this
 * process, using our SDK). Reports delivered messages/s (100 publishes in flight) and delivery latency p50/p99
 * (one publish at a time: publish call → subscriber handler).
 *
 * Floor, measured in the same run: a plain ws relay process that receives the same publish frame, sends one frame
 * per subscriber to a subscriber process and answers the publisher; ratio = svc / floor (throughput: higher is
 * better; latency: lower is better). Each figure is the best of BENCH_EVENTS_ROUNDS (2) rounds.
 *
 * Peer, in the same run: NATS core pub/sub with nats.js (NATS at 127.0.0.1:4222; skipped when absent): the
 * publisher publishes on subject "bench" and a publish counts as done once the server has it (a flush, the same
 * round trip our publish waits for); one subscriber process holds 1 or 10 subscriptions. Target: ≥ 1.0× its msg/s.
 *
 * Each throughput run ends at the subscriber's last receipt, and reports the CPU time (user + system, from
 * /proc/<pid>/stat) of the publisher, the engine / relay / nats-server and the subscriber per delivered message:
 * steadier than msg/s on a shared machine. The NATS row compares the sum over its three processes with ours.
 *
 *   node scripts/bench/events.mjs        (after `npm run build`; BENCH_EVENTS_MESSAGES=20000 by default)
 */
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { WebSocket } from 'ws';
import { monotonicMs as now } from './lib/clock.mjs';
import { portOpen } from './lib/net.mjs';
import { natsServerPid } from './lib/processes.mjs';
import { runWhenCalledDirectly } from './lib/main.mjs';
import { cpuMicros } from './lib/process-cpu.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const CHILD = join(HERE, 'events-child.mjs');
const MESSAGES = Number(process.env.BENCH_EVENTS_MESSAGES ?? 20000);
/** Unmeasured messages before the timed run, for every system alike (their processes are new each round). */
const WARM_MESSAGES = Number(process.env.BENCH_EVENTS_WARM ?? 20000);
const LATENCY_SAMPLES = 400;
const WINDOW = 100;

function child(role, ...args) {
  const proc = fork(CHILD, [role, ...args], {
    execArgv:
      process.env.BENCH_PROF && role === process.env.BENCH_PROF
        ? ['--cpu-prof', '--cpu-prof-dir=/tmp/svc-bench-prof']
        : [],
    cwd: join(HERE, '../..'),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const first = new Promise((resolve, reject) => {
    proc.once('message', resolve);
    proc.once('exit', (code) => reject(new Error(`${role} exited with ${code}`)));
  });
  const report = () =>
    new Promise((resolve) => {
      proc.once('message', resolve);
      proc.send('report');
    });
  const stop = () =>
    new Promise((resolve) => {
      if (proc.exitCode !== null) return resolve();
      proc.once('exit', resolve);
      proc.kill('SIGTERM');
      setTimeout(() => proc.kill('SIGKILL'), 2000).unref();
    });
  return { first, report, stop, pid: proc.pid };
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/**
 * Publishes `count` messages with up to `window` in flight; resolves when `expected` deliveries were reported.
 * The run ends at the subscriber's last receipt (not when the parent polled it). `procs` ({name: pid}) get their
 * CPU time over the run divided by the deliveries: µs of CPU per delivered message, per process.
 */
async function drive(publish, subscriber, count, window, copies, procs = {}) {
  const cpuBefore = Object.fromEntries(Object.entries(procs).map(([name, pid]) => [name, cpuMicros(pid) ?? NaN]));
  const started = now();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      await publish({ t: now(), pad: 'x'.repeat(64) });
    }
  };
  await Promise.all(Array.from({ length: Math.min(window, count) }, worker));
  const expected = count * copies;
  let received = 0;
  let last = started;
  let latencies = [];
  for (let waited = 0; received < expected && waited < 200; waited++) {
    const { count: got, latencies: batch, last: lastReceipt } = await subscriber.report();
    received += got;
    if (got > 0) last = lastReceipt;
    latencies = latencies.concat(batch);
    if (received < expected) await new Promise((r) => setTimeout(r, 25));
  }
  const seconds = (last - started) / 1000;
  const cpuPerMessage = Object.fromEntries(
    Object.entries(procs).map(([name, pid]) => [name, ((cpuMicros(pid) ?? NaN) - cpuBefore[name]) / received]),
  );
  latencies.sort((a, b) => a - b);
  return {
    cpuPerMessage,
    perSecond: received / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    received,
    expected,
  };
}

async function measureSvc(subscribers) {
  const { registerWorker } = await import('@svc/sdk');
  const engine = child('engine');
  const { url } = await engine.first;
  const sub = child('svc-subscriber', url, String(subscribers));
  await sub.first;
  const client = registerWorker(url, { workerName: 'bench-publisher', logger: pino({ level: 'silent' }) });
  await client.ready();
  const publish = (data) => client.trigger({ function_id: 'publish', payload: { topic: 'bench', data } });
  try {
    // Wait until every binding is active (a probe reaches all of them), then discard the probes.
    for (let got = 0; got < subscribers;) {
      await publish({ probe: true });
      await new Promise((r) => setTimeout(r, 50));
      got = (await sub.report()).count >= subscribers ? subscribers : 0;
    }
    await sub.report();
    const latency = await drive(publish, sub, LATENCY_SAMPLES, 1, subscribers);
    const procs = { publisher: process.pid, engine: engine.pid, subscriber: sub.pid };
    if (WARM_MESSAGES > 0) await drive(publish, sub, WARM_MESSAGES, WINDOW, subscribers);
    const throughput = await drive(publish, sub, MESSAGES, WINDOW, subscribers, procs);
    return { latency, throughput };
  } finally {
    await client.shutdown();
    await Promise.all([sub.stop(), engine.stop()]);
  }
}

async function measureFloor(subscribers) {
  const relay = child('relay');
  const { url } = await relay.first;
  const sub = child('ws-subscriber', url, String(subscribers));
  await sub.first;
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const pending = new Map();
  ws.on('message', (raw) => {
    const msg = JSON.parse(String(raw));
    pending.get(msg.invocation_id)?.();
    pending.delete(msg.invocation_id);
  });
  const publish = (data) =>
    new Promise((resolve) => {
      const id = randomUUID();
      pending.set(id, resolve);
      ws.send(
        JSON.stringify({
          type: 'invokefunction',
          invocation_id: id,
          function_id: 'publish',
          copies: subscribers,
          data,
        }),
      );
    });
  try {
    const latency = await drive(publish, sub, LATENCY_SAMPLES, 1, subscribers);
    const procs = { publisher: process.pid, relay: relay.pid, subscriber: sub.pid };
    if (WARM_MESSAGES > 0) await drive(publish, sub, WARM_MESSAGES, WINDOW, subscribers);
    const throughput = await drive(publish, sub, MESSAGES, WINDOW, subscribers, procs);
    return { latency, throughput };
  } finally {
    ws.close();
    await Promise.all([sub.stop(), relay.stop()]);
  }
}

const NATS_URL = process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222';

async function measureNats(subscribers) {
  const { connect, JSONCodec } = await import('nats');
  const codec = JSONCodec();
  const sub = child('nats-subscriber', NATS_URL, String(subscribers));
  await sub.first;
  const nc = await connect({ servers: NATS_URL });
  const publish = async (data) => {
    nc.publish('bench', codec.encode(data));
    await nc.flush();
  };
  try {
    const latency = await drive(publish, sub, LATENCY_SAMPLES, 1, subscribers);
    const procs = { publisher: process.pid, 'nats-server': natsServerPid(), subscriber: sub.pid };
    if (procs['nats-server'] === undefined) delete procs['nats-server'];
    if (WARM_MESSAGES > 0) await drive(publish, sub, WARM_MESSAGES, WINDOW, subscribers);
    const throughput = await drive(publish, sub, MESSAGES, WINDOW, subscribers, procs);
    return { latency, throughput };
  } finally {
    await nc.close();
    await sub.stop();
  }
}

const round = (x, digits = 2) => Number(x.toFixed(digits));
const ROUNDS = Number(process.env.BENCH_EVENTS_ROUNDS ?? 2);

/** The best round: highest throughput, lowest latencies (each taken from its own best round). */
function best(results) {
  const pick = (key, field, better) =>
    results.map((r) => r[key]).reduce((a, b) => (better(b[field], a[field]) ? b : a));
  const throughput = pick('throughput', 'perSecond', (x, y) => x > y);
  const p50 = pick('latency', 'p50', (x, y) => x < y).p50;
  const p99 = pick('latency', 'p99', (x, y) => x < y).p99;
  return { throughput, latency: { p50, p99 } };
}

export async function run({ log = console.log } = {}) {
  const rows = [];
  const natsUp = await portOpen(Number(new URL(NATS_URL).port || 4222));
  if (!natsUp) log(`events: no NATS at ${NATS_URL}: the NATS pub/sub rows are skipped (scripts/services.sh)`);
  for (const subscribers of [1, 10]) {
    // Best of ROUNDS, svc, floor and peer interleaved: the machine is shared, one busy moment should not decide.
    const runs = { svc: [], floor: [], nats: [] };
    const tag = `${subscribers} subscriber${subscribers > 1 ? 's' : ''}`;
    for (let i = 0; i < ROUNDS; i++) {
      runs.svc.push(await measureSvc(subscribers));
      runs.floor.push(await measureFloor(subscribers));
      if (natsUp) runs.nats.push(await measureNats(subscribers));
      for (const [system, results] of Object.entries(runs)) {
        const r = results.at(-1)?.throughput;
        if (r !== undefined)
          log(`events ${tag} round ${i + 1} ${system}: ${round(r.perSecond, 0)} msg/s, ${cpuLine(r)}`);
      }
    }
    const svc = best(runs.svc);
    const floor = best(runs.floor);
    if (svc.throughput.received < svc.throughput.expected) {
      log(
        `events: only ${svc.throughput.received}/${svc.throughput.expected} deliveries arrived with ${subscribers} subscribers`,
      );
    }
    rows.push(
      row(
        `events publish→deliver throughput, ${tag}`,
        svc.throughput.perSecond,
        floor.throughput.perSecond,
        'msg/s',
        0,
      ),
      row(`events publish→deliver latency p50, ${tag}`, svc.latency.p50, floor.latency.p50, 'ms', 3),
      row(`events publish→deliver latency p99, ${tag}`, svc.latency.p99, floor.latency.p99, 'ms', 3),
      row(`events latency p99 under load, ${tag}`, svc.throughput.p99, floor.throughput.p99, 'ms', 1),
    );
    for (const r of rows.slice(-4)) log(`${r.name}: ${r.value} ${r.unit} (floor ${r.floor}, ratio ${r.ratio})`);
    if (natsUp) {
      const nats = best(runs.nats);
      const peer = { peer: 'NATS core (nats.js)' };
      rows.push(
        {
          ...row(
            `events publish→deliver throughput, ${tag}`,
            svc.throughput.perSecond,
            nats.throughput.perSecond,
            'msg/s',
            0,
          ),
          ...peer,
          target: '≥ 1.0',
        },
        {
          ...row(
            `events CPU per delivered message, all processes, ${tag}`,
            leastCpu(runs.svc),
            leastCpu(runs.nats),
            'µs',
            1,
          ),
          ...peer,
        },
        { ...row(`events publish→deliver latency p50, ${tag}`, svc.latency.p50, nats.latency.p50, 'ms', 3), ...peer },
      );
      log(`events NATS ${tag}: ${round(nats.throughput.perSecond, 0)} msg/s, p50 ${round(nats.latency.p50, 3)} ms`);
    }
  }
  return rows;
}

/** CPU µs per delivered message, per process and in all, as one log line. */
function cpuLine({ cpuPerMessage }) {
  const parts = Object.entries(cpuPerMessage).map(([name, us]) => `${name} ${round(us, 1)}`);
  return `CPU µs per delivered message: ${parts.join(', ')}, all ${round(totalCpu({ cpuPerMessage }), 1)}`;
}

function totalCpu({ cpuPerMessage }) {
  return Object.values(cpuPerMessage).reduce((a, b) => a + b, 0);
}

/** The lowest all-process CPU per delivered message over the rounds of one system. */
function leastCpu(results) {
  return Math.min(...results.map((r) => totalCpu(r.throughput)));
}

function row(name, value, floor, unit, digits) {
  return { name, value: round(value, digits), unit, floor: round(floor, digits), ratio: round(value / floor, 2) };
}

runWhenCalledDirectly(import.meta.url, run, { log: console.log });
