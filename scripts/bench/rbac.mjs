// Access-control overhead: the same sync call through an open listener and through a listener with RBAC (every
// function exposed, no middleware), in one engine process, callers and executor as raw ws clients in a child
// process. Reports throughput with 64 calls outstanding on each listener and the ratio (rbac / open).
// Run by scripts/bench/run.mjs (`node scripts/bench/run.mjs rbac`).
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { freePort } from './lib/net.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '../..');
const RUN_MS = Number(process.env.BENCH_TPUT_MS ?? 1500);
const OUTSTANDING = 64;

async function startEngine() {
  const [port, rbacPort] = [await freePort(), await freePort()];
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-rbac-'));
  const config = join(dir, 'svc-config.yaml');
  writeFileSync(
    config,
    [
      `port: ${port}`,
      'host: 127.0.0.1',
      'log_level: warn',
      'modules: []',
      'listeners:',
      `  - { name: guarded, port: ${rbacPort}, host: 127.0.0.1, rbac: { expose_functions: ['match("*")'] } }`,
    ].join('\n'),
  );
  const proc = spawn(process.execPath, [join(ROOT, 'cli/dist/main.js'), '-c', config], { cwd: dir, stdio: 'ignore' });
  const open = `ws://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (await connects(open)) return { open, guarded: `ws://127.0.0.1:${rbacPort}`, stop: () => proc.kill('SIGKILL') };
    await new Promise((r) => setTimeout(r, 50));
  }
  proc.kill('SIGKILL');
  throw new Error('engine did not start');
}

function connects(url) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    ws.on('message', () => {
      ws.terminate();
      resolve(true);
    });
    ws.on('error', () => resolve(false));
  });
}

function socket(url) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('message', () => resolve(ws));
    ws.once('error', reject);
  });
}

async function executor(url) {
  const ws = await socket(url);
  ws.on('message', (raw) => {
    const msg = JSON.parse(String(raw));
    if (msg.type !== 'invokefunction') return;
    ws.send(
      JSON.stringify({
        type: 'invocationresult',
        invocation_id: msg.invocation_id,
        function_id: msg.function_id,
        result: msg.data,
      }),
    );
  });
  ws.send(JSON.stringify({ type: 'registerfunction', id: 'bench::echo' }));
  await new Promise((r) => setTimeout(r, 200));
  return ws;
}

/** Calls per second with `OUTSTANDING` calls in flight for `RUN_MS`. */
async function throughput(url) {
  const ws = await socket(url);
  const data = { payload: 'x'.repeat(100) };
  let done = 0;
  let stopAt = 0;
  const fire = () =>
    ws.send(JSON.stringify({ type: 'invokefunction', invocation_id: randomUUID(), function_id: 'bench::echo', data }));
  const finished = new Promise((resolve) => {
    let outstanding = 0;
    ws.on('message', (raw) => {
      if (!String(raw).includes('"invocationresult"')) return;
      outstanding--;
      done++;
      if (Date.now() < stopAt) {
        outstanding++;
        fire();
      } else if (outstanding === 0) resolve();
    });
    stopAt = Date.now() + RUN_MS;
    for (let i = 0; i < OUTSTANDING; i++) {
      outstanding++;
      fire();
    }
  });
  const started = Date.now();
  await finished;
  ws.close();
  return Math.round((done * 1000) / (Date.now() - started));
}

export async function run({ log = console.log } = {}) {
  const engine = await startEngine();
  try {
    const exec = await executor(engine.open);
    await throughput(engine.open); // warm-up
    const open = await throughput(engine.open);
    const guarded = await throughput(engine.guarded);
    const openAgain = await throughput(engine.open);
    exec.close();
    const floor = Math.round((open + openAgain) / 2);
    log(`rbac: open ${open}/${openAgain} calls/s, rbac ${guarded} calls/s`);
    return [
      { area: 'rbac', name: `sync call, ${OUTSTANDING} outstanding, open listener`, value: floor, unit: 'calls/s' },
      {
        area: 'rbac',
        name: `sync call, ${OUTSTANDING} outstanding, rbac listener (expose *)`,
        value: guarded,
        unit: 'calls/s',
        floor,
        ratio: Number((guarded / floor).toFixed(2)),
      },
    ];
  } finally {
    engine.stop();
  }
}
