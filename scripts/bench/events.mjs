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
 *   node scripts/bench/events.mjs        (after `npm run build`; BENCH_EVENTS_MESSAGES=4000 by default)
 */
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { WebSocket } from 'ws';

const HERE = dirname(fileURLToPath(import.meta.url));
const CHILD = join(HERE, 'events-child.mjs');
const MESSAGES = Number(process.env.BENCH_EVENTS_MESSAGES ?? 4000);
const LATENCY_SAMPLES = 400;
const WINDOW = 100;
const now = () => performance.timeOrigin + performance.now();

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
  return { first, report, stop };
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** Publishes `count` messages with up to `window` in flight; resolves when `expected` deliveries were reported. */
async function drive(publish, subscriber, count, window, copies) {
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
  const latencies = [];
  for (let waited = 0; received < expected && waited < 200; waited++) {
    const { count: got, latencies: batch } = await subscriber.report();
    received += got;
    latencies.push(...batch);
    if (received < expected) await new Promise((r) => setTimeout(r, 25));
  }
  const seconds = (now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
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
    const throughput = await drive(publish, sub, MESSAGES, WINDOW, subscribers);
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
    const throughput = await drive(publish, sub, MESSAGES, WINDOW, subscribers);
    return { latency, throughput };
  } finally {
    ws.close();
    await Promise.all([sub.stop(), relay.stop()]);
  }
}

const round = (x, digits = 2) => Number(x.toFixed(digits));
const ROUNDS = Number(process.env.BENCH_EVENTS_ROUNDS ?? 2);

async function repeat(measure) {
  const results = [];
  for (let i = 0; i < ROUNDS; i++) results.push(await measure());
  return results;
}

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
  for (const subscribers of [1, 10]) {
    // Best of ROUNDS, svc and floor interleaved: the machine is shared, and one busy moment should not decide.
    const svc = best(await repeat(() => measureSvc(subscribers)));
    const floor = best(await repeat(() => measureFloor(subscribers)));
    if (svc.throughput.received < svc.throughput.expected) {
      log(
        `events: only ${svc.throughput.received}/${svc.throughput.expected} deliveries arrived with ${subscribers} subscribers`,
      );
    }
    const tag = `${subscribers} subscriber${subscribers > 1 ? 's' : ''}`;
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
  }
  return rows;
}

function row(name, value, floor, unit, digits) {
  return { name, value: round(value, digits), unit, floor: round(floor, digits), ratio: round(value / floor, 2) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = await run({ log: console.log });
  console.table(rows);
  process.exit(0);
}
