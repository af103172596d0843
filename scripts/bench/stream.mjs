/**
 * Streams benchmark: one writer, 1,000 clients subscribed to one group.
 *
 * svc path: writer (SDK) → engine → svc-stream `stream::set` → in-memory adapter → 1,000 client sockets.
 * Floor: a plain `ws` server (its own process) that broadcasts each frame it is sent, same frame size, to the same
 * 1,000 clients. Measured in the same run, with the same client code:
 * - delivery latency p50 / p99 at 100 updates/s (send → each client has it), 3 s;
 * - max updates/s delivered to all clients (a burst with 16 writes in flight).
 *
 * Run alone: `npm run build && node scripts/bench/stream.mjs`; or through `npm run bench`.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Buffer } from 'node:buffer';
import { clearTimeout, setTimeout } from 'node:timers';
import WebSocket from 'ws';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CLIENTS = Number(process.env.BENCH_STREAM_CLIENTS ?? 1000);
const RATE = 100;
const LATENCY_SECONDS = Number(process.env.BENCH_STREAM_SECONDS ?? 3);
const BURST = Number(process.env.BENCH_STREAM_BURST ?? 500);
const IN_FLIGHT = 16;
const FILLER = 'x'.repeat(120); // a realistic small item
const SEQ = Buffer.from('"seq":');

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

function freePort() {
  return new Promise((res, rej) => {
    const server = createServer();
    server.on('error', rej);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => res(port));
    });
  });
}

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
  return {
    proc,
    ready,
    stop: () => new Promise((r) => (proc.exitCode !== null ? r() : (proc.once('exit', r), proc.kill('SIGTERM')))),
  };
}

/** Opens `count` clients; `onFrame(seq)` is called for each update frame a client receives. */
async function openClients(url, count, join, onFrame) {
  const clients = [];
  for (let i = 0; i < count; i += 100) {
    const batch = Array.from({ length: Math.min(100, count - i) }, () => {
      const ws = new WebSocket(url);
      ws.on('error', () => {});
      ws.on('message', (data) => {
        // Just the sequence number: the clients must cost as little as possible, they share one process.
        const at = data.indexOf(SEQ);
        if (at !== -1) onFrame(parseInt(data.toString('latin1', at + SEQ.length, at + SEQ.length + 12), 10));
      });
      return new Promise((res, rej) => {
        ws.once('open', () => {
          if (join)
            ws.send(JSON.stringify({ type: 'join', data: { subscriptionId: 's', streamName: 'bench', groupId: 'g' } }));
          res(ws);
        });
        ws.once('error', rej);
      });
    });
    clients.push(...(await Promise.all(batch)));
  }
  return clients;
}

/** Tracks, per update, when it was sent and when the last of the clients received it. */
class Deliveries {
  constructor(clients) {
    this.clients = clients;
    this.sent = new Map();
    this.received = new Map();
    this.latencies = [];
    this.done = 0;
    this.lastDone = 0;
    this.waiters = [];
  }
  markSent(seq) {
    this.sent.set(seq, performance.now());
  }
  onFrame(seq) {
    const sentAt = this.sent.get(seq);
    if (sentAt === undefined) return;
    const now = performance.now();
    this.latencies.push(now - sentAt);
    const n = (this.received.get(seq) ?? 0) + 1;
    this.received.set(seq, n);
    if (n === this.clients) {
      this.done++;
      this.lastDone = now;
      this.waiters = this.waiters.filter((w) => !w());
    }
  }
  until(done, ms) {
    return new Promise((res, rej) => {
      const timer = setTimeout(() => rej(new Error(`only ${this.done}/${done} updates reached all clients`)), ms);
      const check = () => (this.done >= done ? (clearTimeout(timer), res(), true) : false);
      if (!check()) this.waiters.push(check);
    });
  }
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** Latency at a steady rate, then the burst throughput, through `publish(seq)`. */
async function measure(label, url, join, publish, log) {
  let deliveries = new Deliveries(CLIENTS);
  const clients = await openClients(url, CLIENTS, join, (seq) => deliveries.onFrame(seq));
  await new Promise((r) => setTimeout(r, 500)); // joins and syncs settle
  log?.(`${label}: ${CLIENTS} clients connected`);
  const total = RATE * LATENCY_SECONDS;
  const start = performance.now();
  for (let seq = 0; seq < total; seq++) {
    const due = start + (seq * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    deliveries.markSent(seq);
    void publish(seq);
  }
  await deliveries.until(total, 30_000);
  const sorted = deliveries.latencies.sort((a, b) => a - b);
  const p50 = percentile(sorted, 50);
  const p99 = percentile(sorted, 99);

  deliveries = new Deliveries(CLIENTS);
  const burstStart = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < BURST) {
        const seq = next++;
        deliveries.markSent(seq);
        await publish(seq);
      }
    }),
  );
  await deliveries.until(BURST, 60_000);
  const throughput = BURST / ((deliveries.lastDone - burstStart) / 1000);
  for (const ws of clients) ws.terminate();
  log?.(`${label}: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, ${throughput.toFixed(0)} updates/s to all`);
  return { p50, p99, throughput };
}

async function measureSvc(log) {
  const enginePort = await freePort();
  const streamPort = await freePort();
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
        payload: {
          stream_name: 'bench',
          group_id: 'g',
          item_id: `i${seq % 10}`,
          data: { id: `i${seq % 10}`, seq, filler: FILLER },
        },
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
      const frame = { type: 'stream', timestamp: Date.now(), streamName: 'bench', groupId: 'g', id: `i${seq % 10}` };
      writer.send(
        JSON.stringify({ ...frame, event: { type: 'update', data: { id: `i${seq % 10}`, seq, filler: FILLER } } }),
      );
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
  return [
    {
      name: `stream delivery p50 @${RATE}/s, ${n}`,
      value: svc.p50,
      unit: 'ms',
      floor: floor.p50,
      ratio: svc.p50 / floor.p50,
    },
    {
      name: `stream delivery p99 @${RATE}/s, ${n}`,
      value: svc.p99,
      unit: 'ms',
      floor: floor.p99,
      ratio: svc.p99 / floor.p99,
    },
    {
      name: `stream updates/s delivered to all ${n}`,
      value: svc.throughput,
      unit: 'updates/s',
      floor: floor.throughput,
      ratio: svc.throughput / floor.throughput,
    },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = await run({ log: (m) => console.error(m) });
  for (const r of rows) {
    console.log(
      `${r.name}: ${r.value.toFixed(2)} ${r.unit} (floor ${r.floor.toFixed(2)}, ratio ${r.ratio.toFixed(2)})`,
    );
  }
  process.exit(0);
}
