// Engine memory: resident set growth per idle worker connection (1,000 raw WebSocket workers that connect and
// stay silent) and per registered function (10,000 registrations from one connection), read from /proc (Linux)
// once the engine has been idle for BENCH_MEMORY_IDLE_MS (12 s: V8's memory reducer compacts an idle heap after
// ~8 s) and then ran full garbage collections (it runs with --expose-gc and lib/gc-preload.mjs, and collects on
// request over IPC): the figures are what an engine at rest keeps, not garbage of the burst not yet collected.
// A registration is what the SDK sends for a typical function: an id and a description on every one; a request
// and a response JSON Schema on one in four (BENCH_MEMORY_SCHEMA_EVERY); metadata on one in ten.
// Targets: ≤ 16 KiB per idle connection, ≤ 0.5 KiB per registered function. Each figure is the best of
// BENCH_MEMORY_ROUNDS (2) runs on a fresh engine; before the baseline, 100 connections come and go so the
// engine's lazily allocated parts (ws server, parser) are counted in the baseline, not per connection.
// Each round's line splits the growth per function: V8's live objects, the pages V8 holds (of them the young
// generation, which V8 grows during a burst and gives back only after a longer idle time), and the resident set
// outside V8's heap (glibc's arenas, Node.js's buffers), which moves from one engine to the next.
// BENCH_MEMORY_SNAPSHOTS=<dir> also writes heap snapshots of the engine with the connections and with the
// functions (compare them with `node scripts/bench/heap-diff.mjs <before> <after>`).
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { stopProcess } from './invoke/procs.mjs';
import { freePort, probe, waitUntil } from './lib/net.mjs';
import { runWhenCalledDirectly } from './lib/main.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '../..');
const CONNECTIONS = Number(process.env.BENCH_MEMORY_CONNECTIONS ?? 1000);
const FUNCTIONS = Number(process.env.BENCH_MEMORY_FUNCTIONS ?? 10000);
const ROUNDS = Number(process.env.BENCH_MEMORY_ROUNDS ?? 2);
const SCHEMA_EVERY = Number(process.env.BENCH_MEMORY_SCHEMA_EVERY ?? 4);
const IDLE_MS = Number(process.env.BENCH_MEMORY_IDLE_MS ?? 12_000);
const SNAPSHOTS = process.env.BENCH_MEMORY_SNAPSHOTS ? resolve(process.env.BENCH_MEMORY_SNAPSHOTS) : undefined;

/** KiB of physical memory V8 holds for its heap spaces, in all and for the young generation (`new_space`). */
function heapPages(spaces) {
  let all = 0;
  let young = 0;
  for (const space of spaces) {
    all += space.physical_space_size / 1024;
    if (space.space_name === 'new_space') young += space.physical_space_size / 1024;
  }
  return { all, young };
}

/** Resident set size of a process, KiB. */
function rssKiB(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.replace(/\D+/g, ''));
}

const settle = (ms = 1000) => new Promise((r) => setTimeout(r, ms));

/** The engine on a free port, forked with an IPC channel over which it collects garbage on request. */
async function startEngine() {
  const port = await freePort();
  const child = fork(join(ROOT, 'engine/dist/main.js'), ['--port', String(port), '--log-level', 'warn'], {
    cwd: ROOT,
    execArgv: ['--expose-gc', '--import', join(HERE, 'lib/gc-preload.mjs')],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const url = `ws://127.0.0.1:${port}`;
  await waitUntil(() => probe(url), 10_000);
  const ask = (msg) =>
    new Promise((res) => {
      child.once('message', res);
      child.send(msg);
    });
  return {
    url,
    pid: child.pid,
    /**
     * Lets the engine idle (V8's memory reducer compacts the heap of an idle process after ~8 s), collects
     * garbage, then reads the resident set.
     */
    async rss() {
      await settle(IDLE_MS);
      const { memory, spaces } = await ask({ cmd: 'gc' });
      await settle(300);
      return { rss: rssKiB(child.pid), heapUsed: memory.heapUsed / 1024, pages: heapPages(spaces) };
    },
    snapshot: (path) => ask({ cmd: 'snapshot', path }),
    stop: () => stopProcess(child, 'SIGKILL'),
  };
}

/** Opens `n` worker connections; resolves once the engine has greeted each (it has attached them). */
async function connect(url, n) {
  const sockets = [];
  for (let i = 0; i < n; i += 50) {
    const batch = Array.from(
      { length: Math.min(50, n - i) },
      () =>
        new Promise((resolve, reject) => {
          const ws = new WebSocket(url, { perMessageDeflate: false });
          ws.once('message', () => resolve(ws));
          ws.once('error', reject);
        }),
    );
    sockets.push(...(await Promise.all(batch)));
  }
  return sockets;
}

/** The `registerfunction` frame the SDK sends for the i-th function of a typical service. */
function registration(i, service = 'orders') {
  const frame = {
    type: 'registerfunction',
    id: `${service}::handle-order-${i}`,
    description: `Validates order batch ${i} and stores it`,
  };
  if (SCHEMA_EVERY > 0 && i % SCHEMA_EVERY === 0) {
    frame.request_format = {
      type: 'object',
      properties: { orderId: { type: 'string' }, quantity: { type: 'integer', minimum: 1 } },
      required: ['orderId', 'quantity'],
    };
    frame.response_format = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
  }
  if (i % 10 === 0) frame.metadata = { team: 'orders', tier: 'gold' };
  return frame;
}

/** Registers `n` functions from `ws`; resolves once the engine has handled them all (frames run in order). */
async function register(ws, n, service) {
  for (let i = 0; i < n; i++) ws.send(JSON.stringify(registration(i, service)));
  const invocationId = randomUUID();
  const answered = new Promise((resolve, reject) =>
    ws.on('message', (raw) => {
      const text = String(raw);
      if (!text.includes(invocationId)) return;
      const msg = JSON.parse(text);
      if (msg.error) reject(new Error(`functions::info failed: ${JSON.stringify(msg.error)}`));
      else resolve(msg.result);
    }),
  );
  ws.send(
    JSON.stringify({
      type: 'invokefunction',
      invocation_id: invocationId,
      function_id: 'engine::functions::info',
      data: { function_id: registration(n - 1, service).id },
    }),
  );
  return answered;
}

async function once(round) {
  const engine = await startEngine();
  try {
    for (const ws of await connect(engine.url, 100)) ws.terminate();
    const base = await engine.rss();
    const sockets = await connect(engine.url, CONNECTIONS);
    const withConnections = await engine.rss();
    if (SNAPSHOTS) {
      mkdirSync(SNAPSHOTS, { recursive: true });
      await engine.snapshot(join(SNAPSHOTS, `engine-${round}-connections.heapsnapshot`));
    }
    await register(sockets[0], FUNCTIONS);
    const withFunctions = await engine.rss();
    if (SNAPSHOTS) await engine.snapshot(join(SNAPSHOTS, `engine-${round}-functions.heapsnapshot`));
    for (const ws of sockets) ws.terminate();
    const perFunction = (withFunctions.rss - withConnections.rss) / FUNCTIONS;
    const pagesPerFunction = (withFunctions.pages.all - withConnections.pages.all) / FUNCTIONS;
    return {
      perConnection: (withConnections.rss - base.rss) / CONNECTIONS,
      perFunction,
      heapPerFunction: (withFunctions.heapUsed - withConnections.heapUsed) / FUNCTIONS,
      pagesPerFunction,
      youngPerFunction: (withFunctions.pages.young - withConnections.pages.young) / FUNCTIONS,
      outsidePerFunction: perFunction - pagesPerFunction,
      base: base.rss,
    };
  } finally {
    await engine.stop();
  }
}

const signed = (x) => `${x < 0 ? '−' : '+'}${Math.abs(x).toFixed(3)}`;

export async function run({ log = console.log } = {}) {
  let best;
  for (let i = 0; i < ROUNDS; i++) {
    const r = await once(i);
    log(
      `memory: base ${r.base} KiB, ${r.perConnection.toFixed(2)} KiB/connection, ${r.perFunction.toFixed(3)} KiB/function` +
        ` (V8 heap ${r.heapPerFunction.toFixed(3)} KiB/function; V8's pages ${r.pagesPerFunction.toFixed(3)},` +
        ` of them the young generation ${r.youngPerFunction.toFixed(3)}; outside V8's heap ${signed(r.outsidePerFunction)})`,
    );
    best =
      best === undefined
        ? r
        : {
            perConnection: Math.min(best.perConnection, r.perConnection),
            perFunction: Math.min(best.perFunction, r.perFunction),
            base: Math.min(best.base, r.base),
          };
  }
  const r2 = (x) => Math.round(x * 100) / 100;
  return [
    { name: 'engine RSS at rest', value: Math.round(best.base / 1024), unit: 'MiB' },
    {
      name: `engine RSS per idle worker connection (${CONNECTIONS})`,
      value: r2(best.perConnection),
      unit: 'KiB',
      target: '≤ 16',
    },
    {
      name: `engine RSS per registered function (${FUNCTIONS})`,
      value: r2(best.perFunction),
      unit: 'KiB',
      target: '≤ 0.5',
    },
  ];
}

runWhenCalledDirectly(import.meta.url, run);
