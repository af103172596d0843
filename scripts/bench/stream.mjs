/**
 * Streams benchmark: one writer, 1,000 clients subscribed to one group.
 *
 * svc path: writer (SDK) → engine → svc-stream `stream::set` → in-memory adapter → 1,000 client sockets.
 * Floor: a plain `ws` server (its own process) that broadcasts each frame it is sent, same frame size, to the same
 * 1,000 clients. Measured in the same run, with the same client code:
 * - delivery latency p50 / p99 at 100 updates/s (send → each client has it), 3 s;
 * - max updates/s delivered to all clients (a burst with 16 writes in flight).
 *
 * The clients run in two worker threads so that the writer's pacing does not depend on their load. Each update
 * carries its send time on the process's monotonic clock (`process.hrtime`, shared by every thread).
 *
 * Run alone: `npm run build && node scripts/bench/stream.mjs`; or through `npm run bench`.
 */
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearTimeout, setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import WebSocket from 'ws';
import { calledDirectly } from './lib/main.mjs';
import { freePort } from './lib/net.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CLIENTS = Number(process.env.BENCH_STREAM_CLIENTS ?? 1000);
const THREADS = 2;
const RATE = 100;
const LATENCY_SECONDS = Number(process.env.BENCH_STREAM_SECONDS ?? 3);
const BURST = Number(process.env.BENCH_STREAM_BURST ?? 500);
const IN_FLIGHT = 16;
const WARMUP = 200;
const FILLER = 'x'.repeat(100); // a realistic small item
// The monotonic clock every thread of the process shares (ms, µs resolution).
const now = () => Number(process.hrtime.bigint() / 1000n) / 1000;

const FLOOR_SERVER = `
import { WebSocketServer } from 'ws';
const wss = new WebSocketServer({ port: Number(process.env.PORT), host: '127.0.0.1' });
wss.on('connection', (ws) => {
  ws.on('error', () => {});
  ws.on('message', (data) => {
    // Encoded once and shared, like svc-stream does.
    for (const client of wss.clients) if (client !== ws && client.readyState === 1) client.send(data, { binary: false });
    ws.send('ack');
  });
});
wss.on('listening', () => console.log('floor listening'));
`;

// ---------------------------------------------------------------- client threads

/** Thread side: opens clients, records latency per frame, reports when every local client has an update. */
async function clientThread({ url, count, join: shouldJoin }) {
  const SEQ = Buffer.from('"seq":');
  const SENT = Buffer.from('"sentAt":');
  let latencies = [];
  let counts = new Map();
  const number = (data, key) => {
    const at = data.indexOf(key);
    return at === -1 ? NaN : parseFloat(data.toString('latin1', at + key.length, at + key.length + 24));
  };
  const onFrame = (data) => {
    const seq = number(data, SEQ);
    if (Number.isNaN(seq)) return;
    const at = now();
    latencies.push(at - number(data, SENT));
    const n = (counts.get(seq) ?? 0) + 1;
    counts.set(seq, n);
    if (n === count) parentPort.postMessage({ type: 'done', seq, at });
  };
  const sockets = [];
  for (let i = 0; i < count; i += 50) {
    const batch = Array.from({ length: Math.min(50, count - i) }, () => {
      const ws = new WebSocket(url);
      ws.on('error', () => {});
      ws.on('message', onFrame);
      return new Promise((res, rej) => {
        ws.once('open', () => {
          if (shouldJoin) {
            ws.send(JSON.stringify({ type: 'join', data: { subscriptionId: 's', streamName: 'bench', groupId: 'g' } }));
          }
          res(ws);
        });
        ws.once('error', rej);
      });
    });
    sockets.push(...(await Promise.all(batch)));
  }
  parentPort.on('message', (msg) => {
    if (msg === 'collect') {
      parentPort.postMessage({ type: 'latencies', latencies });
      latencies = [];
      counts = new Map();
    } else if (msg === 'close') {
      for (const ws of sockets) ws.terminate();
      parentPort.close();
    }
  });
  parentPort.postMessage({ type: 'ready' });
}

/** Main side: the client threads, and when each update reached every client. */
class ClientPool {
  constructor(url, join) {
    this.doneBy = new Map(); // seq → threads that reported it
    this.completed = 0;
    this.lastDone = 0;
    this.waiters = [];
    const per = Math.ceil(CLIENTS / THREADS);
    this.threads = Array.from({ length: THREADS }, (_, i) => {
      const count = Math.min(per, CLIENTS - i * per);
      return new Worker(fileURLToPath(import.meta.url), { workerData: { url, count, join } });
    });
    for (const t of this.threads) t.on('message', (m) => m.type === 'done' && this.onDone(m));
  }
  ready() {
    return Promise.all(this.threads.map((t) => once(t, 'ready')));
  }
  onDone({ seq, at }) {
    const n = (this.doneBy.get(seq) ?? 0) + 1;
    this.doneBy.set(seq, n);
    if (n < THREADS) return;
    this.completed++;
    this.lastDone = Math.max(this.lastDone, at);
    this.waiters = this.waiters.filter((w) => !w());
  }
  reset() {
    this.doneBy.clear();
    this.completed = 0;
    this.lastDone = 0;
  }
  until(total, ms) {
    return new Promise((res, rej) => {
      const timer = setTimeout(() => rej(new Error(`only ${this.completed}/${total} updates reached all clients`)), ms);
      const check = () => (this.completed >= total ? (clearTimeout(timer), res(), true) : false);
      if (!check()) this.waiters.push(check);
    });
  }
  async latencies() {
    const parts = await Promise.all(
      this.threads.map((t) => {
        const got = once(t, 'latencies');
        t.postMessage('collect');
        return got;
      }),
    );
    return parts.flatMap((p) => p.latencies).sort((a, b) => a - b);
  }
  close() {
    for (const t of this.threads) t.postMessage('close');
    return Promise.all(this.threads.map((t) => new Promise((r) => t.once('exit', r))));
  }
}

function once(thread, type) {
  return new Promise((res) => {
    const on = (m) => m.type === type && (thread.off('message', on), res(m));
    thread.on('message', on);
  });
}

// ---------------------------------------------------------------- processes

function spawnChild(args, env, readyText) {
  const proc = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = new Promise((res, rej) => {
    const onData = (chunk) => {
      output += chunk.toString();
      if (output.includes(readyText)) res();
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.once('exit', (code) => rej(new Error(`${args.join(' ')} exited ${code}: ${output.slice(-2000)}`)));
  });
  ready.catch(() => undefined);
  const stop = () => new Promise((r) => (proc.exitCode !== null ? r() : (proc.once('exit', r), proc.kill('SIGTERM'))));
  return { proc, ready, stop };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

const item = (seq) => ({ id: `i${seq % 10}`, seq, sentAt: now(), filler: FILLER });

/** Latency at a steady rate, then the burst throughput, through `publish(seq)`. */
async function measure(label, url, join, publish, log) {
  const pool = new ClientPool(url, join);
  try {
    await pool.ready();
    await new Promise((r) => setTimeout(r, 500)); // joins and syncs settle
    log?.(`${label}: ${CLIENTS} clients connected`);
    // Warm-up (not measured): JIT and buffers of every process on the path.
    for (let seq = 0; seq < WARMUP; seq++) await publish(seq);
    await pool.until(WARMUP, 60_000);
    await pool.latencies();
    pool.reset();
    const first = WARMUP;
    const total = RATE * LATENCY_SECONDS;
    const start = performance.now();
    for (let seq = first; seq < first + total; seq++) {
      const wait = start + ((seq - first) * 1000) / RATE - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      void publish(seq);
    }
    await pool.until(total, 60_000);
    const sorted = await pool.latencies();
    const p50 = percentile(sorted, 50);
    const p99 = percentile(sorted, 99);

    pool.reset();
    const burstStart = now();
    let next = first + total;
    const end = next + BURST;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < end) await publish(next++);
      }),
    );
    await pool.until(BURST, 60_000);
    const throughput = BURST / ((pool.lastDone - burstStart) / 1000);
    await pool.latencies(); // drop the burst's samples
    log?.(`${label}: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, ${throughput.toFixed(0)} updates/s to all`);
    return { p50, p99, throughput };
  } finally {
    await pool.close();
  }
}

async function measureSvc(log) {
  const [enginePort, streamPort] = [await freePort(), await freePort()];
  const engine = spawnChild([join(ROOT, 'engine/dist/main.js'), '--port', String(enginePort)], {}, 'ready');
  await engine.ready;
  const engineUrl = `ws://127.0.0.1:${enginePort}`;
  const stream = spawnChild(
    [join(ROOT, 'workers/stream/dist/main.js')],
    {
      SVC_URL: engineUrl,
      SVC_LOG_LEVEL: 'info',
      SVC_MODULE_CONFIG: JSON.stringify({
        port: streamPort,
        host: '127.0.0.1',
        adapter: { class: 'modules::stream::adapters::KvStore', config: { store_method: 'in_memory' } },
      }),
    },
    'svc-stream started',
  );
  const { registerWorker } = await import(join(ROOT, 'sdk/dist/index.js'));
  const pino = (await import('pino')).default;
  let writer;
  try {
    await stream.ready;
    writer = registerWorker(engineUrl, { workerName: 'bench-writer', logger: pino({ level: 'silent' }) });
    await writer.ready();
    const publish = (seq) =>
      writer.trigger({
        function_id: 'stream::set',
        payload: { stream_name: 'bench', group_id: 'g', item_id: `i${seq % 10}`, data: item(seq) },
      });
    return await measure('svc-stream', `ws://127.0.0.1:${streamPort}/`, true, publish, log);
  } finally {
    await writer?.shutdown();
    await stream.stop();
    await engine.stop();
  }
}

async function measureFloor(log) {
  const port = await freePort();
  const floor = spawnChild(['--input-type=module', '-e', FLOOR_SERVER], { PORT: String(port) }, 'floor listening');
  await floor.ready;
  const url = `ws://127.0.0.1:${port}/`;
  const writer = new WebSocket(url);
  await new Promise((r) => writer.once('open', r));
  const acks = [];
  writer.on('message', () => acks.shift()?.());
  const publish = (seq) =>
    new Promise((res) => {
      acks.push(res);
      const envelope = { type: 'stream', timestamp: Date.now(), streamName: 'bench', groupId: 'g', id: `i${seq % 10}` };
      writer.send(JSON.stringify({ ...envelope, event: { type: 'update', data: item(seq) } }));
    });
  try {
    return await measure('floor (plain ws broadcast)', url, false, publish, log);
  } finally {
    writer.terminate();
    await floor.stop();
  }
}

export async function run({ log } = {}) {
  const svc = await measureSvc(log);
  const floor = await measureFloor(log);
  const n = `${CLIENTS} clients`;
  const round = (x) => Math.round(x * 100) / 100;
  const row = (name, value, unit, floorValue) => ({
    name,
    value: round(value),
    unit,
    floor: round(floorValue),
    ratio: round(value / floorValue),
  });
  return [
    row(`stream delivery p50 @${RATE}/s, ${n}`, svc.p50, 'ms', floor.p50),
    row(`stream delivery p99 @${RATE}/s, ${n}`, svc.p99, 'ms', floor.p99),
    row(`stream updates/s delivered to all ${n}`, svc.throughput, 'updates/s', floor.throughput),
  ];
}

if (!isMainThread) {
  await clientThread(workerData);
} else if (calledDirectly(import.meta.url)) {
  const rows = await run({ log: (m) => console.error(m) });
  for (const r of rows) {
    console.log(
      `${r.name}: ${r.value.toFixed(2)} ${r.unit} (floor ${r.floor.toFixed(2)}, ratio ${r.ratio.toFixed(2)})`,
    );
  }
  process.exit(0);
}
