/**
 * Stream fan-out to the real client: 1,000 clients of `@motiadev/stream-client-node` (4 processes × 250), each a
 * `Stream` with a group subscription to one group, and one writer doing `stream::set` through the SDK at 100
 * updates/s for 20 s (BENCH_STREAM_SECONDS), cycling over 10 items of the group. Each item carries its send time;
 * each client records send → its change callback (the item shows the new seq), once per update.
 *
 * Path: writer (SDK) → engine → svc-stream `stream::set` → in-memory adapter → 1,000 client sockets → the
 * client library's parse, group state and change listeners.
 *
 * Reports latency p50 / p99 / max over every (client, update), the updates that never reached a client (missing),
 * and the CPU time svc-stream spent during the measured window (from /proc/<pid>/stat) per delivered update (one
 * update to one client) and per update. Targets: p99 < 50 ms, 0 missing.
 *
 * Measured beside it in the same run, with the same client processes: a plain `ws` server in its own process that
 * answers a join with a sync of the group and sends each update, encoded once, to every client with `ws.send`, the
 * broadcast most hand-written servers do (BENCH_STREAM_CLIENT_PLAIN=0 skips it).
 *
 * Run alone: `npm run build && node scripts/bench/stream-client.mjs`; or `node scripts/bench/run.mjs stream-client`.
 * BENCH_PROF=1 writes CPU profiles of svc-stream and of the first client process to bench-results/profiles/.
 */
import { fork, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { cpuMicros } from './lib/process-cpu.mjs';
import { monotonicMs } from './lib/clock.mjs';
import { runWhenCalledDirectly } from './lib/main.mjs';
import { freePort } from './lib/net.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');
const PROCESSES = Number(process.env.BENCH_STREAM_CLIENT_PROCESSES ?? 4);
const PER_PROCESS = Number(process.env.BENCH_STREAM_CLIENTS_PER_PROCESS ?? 250);
const CLIENTS = PROCESSES * PER_PROCESS;
const RATE = Number(process.env.BENCH_STREAM_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_STREAM_SECONDS ?? 20);
const WARMUP = 200;
const ITEMS = 10;
const FILLER = 'x'.repeat(100); // a realistic small item
const PROFILE_DIR = process.env.BENCH_PROF ? join(ROOT, 'bench-results/profiles') : undefined;

function spawnChild(args, env, readyText, execArgv = []) {
  const proc = spawn(process.execPath, [...execArgv, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = new Promise((res, rej) => {
    const onData = (chunk) => {
      output += chunk.toString();
      if (output.includes(readyText)) res();
      if (output.length > 100_000) output = output.slice(-10_000);
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.once('exit', (code) => rej(new Error(`${args.join(' ')} exited ${code}: ${output.slice(-2000)}`)));
  });
  ready.catch(() => undefined);
  const stop = () => new Promise((r) => (proc.exitCode !== null ? r() : (proc.once('exit', r), proc.kill('SIGTERM'))));
  return { proc, ready, stop };
}

/** A forked client process; `ask(cmd, type)` sends a command and resolves the answer of that type. */
function clientProcess(url, index, name) {
  const profile =
    PROFILE_DIR && index === 0
      ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${name}-client-process.cpuprofile`]
      : [];
  const child = fork(join(HERE, 'stream-client-child.mjs'), [url, String(PER_PROCESS), 'bench', 'g'], {
    cwd: ROOT,
    execArgv: profile,
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const answer = (type) =>
    new Promise((res, rej) => {
      const on = (m) => m.type === type && (child.off('message', on), child.off('exit', onExit), res(m));
      const onExit = (code) => rej(new Error(`stream client process exited with ${code}`));
      child.on('message', on);
      child.once('exit', onExit);
    });
  return {
    pid: child.pid,
    ready: answer('ready'),
    send: (msg) => child.send(msg),
    ask: (msg, type) => {
      const got = answer(type);
      child.send(msg);
      return got;
    },
    close: () =>
      new Promise((r) => {
        if (child.exitCode !== null) return r();
        child.once('exit', r);
        child.send({ cmd: 'close' });
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      }),
  };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** Starts engine + svc-stream + an SDK writer: `{ url, pid, set(seq), stop }`. */
async function startSvc() {
  const [enginePort, streamPort] = [await freePort(), await freePort()];
  const engine = spawnChild([join(ROOT, 'engine/dist/main.js'), '--port', String(enginePort)], {}, 'svc engine ready');
  await engine.ready;
  const engineUrl = `ws://127.0.0.1:${enginePort}`;
  if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true });
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
    PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, '--cpu-prof-name=svc-stream-clients.cpuprofile'] : [],
  );
  const { registerWorker } = await import(join(ROOT, 'sdk/dist/index.js'));
  const pino = (await import('pino')).default;
  let writer;
  const stop = async () => {
    await writer?.shutdown();
    await stream.stop();
    await engine.stop();
  };
  try {
    await stream.ready;
    writer = registerWorker(engineUrl, { workerName: 'bench-writer', logger: pino({ level: 'silent' }) });
    await writer.ready();
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    label: 'svc-stream',
    url: `ws://127.0.0.1:${streamPort}/`,
    pid: stream.proc.pid,
    enginePid: engine.proc.pid,
    set: (seq) =>
      writer.trigger({
        function_id: 'stream::set',
        payload: { stream_name: 'bench', group_id: 'g', item_id: itemId(seq), data: itemData(seq) },
      }),
    stop,
  };
}

// The comparison: a plain `ws` server speaking the same client protocol (a join gets a sync of the group's items; an
// update from the writer is sent, encoded once, to every client with `ws.send`), in its own process.
const PLAIN_SERVER = `
import { WebSocketServer } from 'ws';
const items = new Map();
const wss = new WebSocketServer({ port: Number(process.env.PORT), host: '127.0.0.1' });
const clients = new Set();
wss.on('connection', (ws) => {
  ws.on('error', () => {});
  ws.on('message', (raw) => {
    const msg = JSON.parse(String(raw));
    if (msg.type === 'join') {
      clients.add(ws);
      const sync = { type: 'stream', timestamp: Date.now(), streamName: 'bench', groupId: 'g', event: { type: 'sync', data: [...items.values()] } };
      ws.send(JSON.stringify(sync));
    } else if (msg.type === 'set') {
      items.set(msg.data.id, msg.data);
      const frame = Buffer.from(JSON.stringify({ type: 'stream', timestamp: Date.now(), streamName: 'bench', groupId: 'g', id: msg.data.id, event: { type: 'update', data: msg.data } }));
      for (const client of clients) if (client.readyState === 1) client.send(frame, { binary: false });
      ws.send('ack');
    }
  });
  ws.on('close', () => clients.delete(ws));
});
wss.on('listening', () => console.log('plain listening'));
`;

async function startPlain() {
  const port = await freePort();
  const server = spawnChild(['--input-type=module', '-e', PLAIN_SERVER], { PORT: String(port) }, 'plain listening');
  await server.ready;
  const url = `ws://127.0.0.1:${port}/`;
  const WebSocket = (await import('ws')).default;
  const writer = new WebSocket(url);
  await new Promise((r) => writer.once('open', r));
  const acks = [];
  writer.on('message', () => acks.shift()?.());
  return {
    label: 'plain ws server (ws.send per client)',
    url,
    pid: server.proc.pid,
    set: (seq) =>
      new Promise((res) => {
        acks.push(res);
        writer.send(JSON.stringify({ type: 'set', data: itemData(seq) }));
      }),
    stop: async () => {
      writer.terminate();
      await server.stop();
    },
  };
}

/** The item a set writes: one of ITEMS ids (the seqs before 0 create them), its seq and send time. */
const itemId = (seq) => `i${(seq + ITEMS) % ITEMS}`;
const itemData = (seq) => ({ id: itemId(seq), seq, sentAt: monotonicMs(), filler: FILLER });

/** One measurement against a started target. */
async function measure(target, log) {
  const { set } = target;
  const clients = [];
  try {
    // the group's items exist before anyone joins: every client's sync has them, later sets are updates
    for (let seq = -ITEMS; seq < 0; seq++) await set(seq);
    for (let i = 0; i < PROCESSES; i++)
      clients.push(clientProcess(target.url, i, target.enginePid ? 'svc-stream' : 'plain-ws'));
    await Promise.all(clients.map((c) => c.ready));
    log(`${target.label}: ${CLIENTS} clients in ${PROCESSES} processes subscribed`);
    // warm-up (not measured): JIT and buffers of every process on the path
    for (let seq = 0; seq < WARMUP; seq++) await set(seq);
    await new Promise((r) => setTimeout(r, 500));

    const first = WARMUP;
    const total = RATE * SECONDS;
    for (const c of clients) c.send({ cmd: 'measure', from: first, to: first + total });
    await new Promise((r) => setTimeout(r, 100));
    const cpuStart = cpuMicros(target.pid);
    const engineCpuStart = target.enginePid ? cpuMicros(target.enginePid) : 0;
    const clientsCpuStart = clients.map((c) => cpuMicros(c.pid));
    const start = performance.now();
    const sets = [];
    for (let seq = first; seq < first + total; seq++) {
      const wait = start + ((seq - first) * 1000) / RATE - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      sets.push(set(seq));
    }
    await Promise.all(sets);
    // every set has been answered; wait until the clients have it (or 5 s without progress)
    const expected = CLIENTS * total;
    let delivered = 0;
    for (let stalled = 0; delivered < expected && stalled < 50;) {
      await new Promise((r) => setTimeout(r, 100));
      const parts = await Promise.all(clients.map((c) => c.ask({ cmd: 'progress' }, 'progress')));
      const now = parts.reduce((sum, p) => sum + p.delivered, 0);
      stalled = now === delivered ? stalled + 1 : 0;
      delivered = now;
    }
    const cpu = cpuMicros(target.pid) - cpuStart;
    const engineCpu = target.enginePid ? cpuMicros(target.enginePid) - engineCpuStart : 0;
    const clientsCpu = clients.reduce((sum, c, i) => sum + cpuMicros(c.pid) - clientsCpuStart[i], 0);
    const window = (performance.now() - start) / 1000;
    const parts = await Promise.all(clients.map((c) => c.ask({ cmd: 'collect' }, 'collected')));
    const latencies = new Float64Array(parts.reduce((n, p) => n + p.latencies.length, 0));
    let offset = 0;
    for (const p of parts) {
      latencies.set(p.latencies, offset);
      offset += p.latencies.length;
    }
    latencies.sort();
    const missing = expected - latencies.length;
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    const max = latencies[latencies.length - 1] ?? NaN;
    const cpuPerDelivered = cpu / Math.max(1, latencies.length);
    log(
      `${target.label}: ${total} updates × ${CLIENTS} clients: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, ` +
        `max ${max.toFixed(2)} ms, missing ${missing}; server CPU ${(cpu / 1000).toFixed(0)} ms ` +
        `(${cpuPerDelivered.toFixed(2)} µs per delivered update, ${(cpu / total).toFixed(0)} µs per update), ` +
        `engine CPU ${(engineCpu / 1000).toFixed(0)} ms, client processes CPU ${(clientsCpu / 1000).toFixed(0)} ms ` +
        `over ${window.toFixed(1)} s`,
    );
    return { p50, p99, max, missing, cpuPerDelivered, cpuPerUpdate: cpu / total };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
}

async function measureOn(start, log) {
  const target = await start();
  try {
    return await measure(target, log);
  } finally {
    await target.stop();
  }
}

export async function run({ log = console.log } = {}) {
  const svc = await measureOn(startSvc, log);
  const plain = process.env.BENCH_STREAM_CLIENT_PLAIN === '0' ? undefined : await measureOn(startPlain, log);
  // a server that cannot keep up queues the updates and its latency grows with the run: no floor to compare with
  if (plain !== undefined && plain.p50 > 1000)
    log(
      `plain ws server: fell behind (p50 ${Math.round(plain.p50)} ms at ${plain.cpuPerDelivered.toFixed(2)} µs of ` +
        `CPU per delivered update): its latency rows are not a floor on this host`,
    );
  const r2 = (x) => Math.round(x * 100) / 100;
  const row = (name, key, unit, target) => {
    const r = { name, value: r2(svc[key]), unit };
    if (plain !== undefined) {
      Object.assign(r, { peer: 'plain ws server', floor: r2(plain[key]) });
      if (plain[key] !== 0) r.ratio = r2(svc[key] / plain[key]);
    }
    if (target !== undefined) r.target = target;
    return r;
  };
  const n = `${CLIENTS} real clients, ${RATE}/s for ${SECONDS} s`;
  return [
    row(`stream-client latency p50 (${n})`, 'p50', 'ms'),
    row(`stream-client latency p99 (${n})`, 'p99', 'ms', '< 50 ms'),
    row(`stream-client latency max (${n})`, 'max', 'ms'),
    row(`stream-client missing updates (${n})`, 'missing', 'updates', '0'),
    row('svc-stream CPU per delivered update (one client)', 'cpuPerDelivered', 'µs'),
    row('svc-stream CPU per update (to all clients)', 'cpuPerUpdate', 'µs'),
  ];
}

runWhenCalledDirectly(import.meta.url, run, { log: (m) => console.error(m) });
