// Processes of the invoke benchmark, started by scripts/bench/invoke.mjs with `fork(roles.mjs, [role, url])`:
//   relay          the floor: a plain ws relay, /call ⇄ /exec, frames forwarded untouched (never parsed)
//   executor       raw ws worker answering every invokefunction with its data (registers bench::echo first)
//   caller         raw ws caller driven over IPC: { cmd: 'seq', n, size, warm? } | { cmd: 'tput', concurrency, ms, size }
//   sdk-executor   the same executor on our SDK
//   sdk-caller     the same caller on our SDK
//   (and the peers of invoke/peer-roles.mjs: json-relay, mol-executor, mol-caller, iii-executor, iii-caller)
import { randomUUID } from 'node:crypto';
import WebSocket, { WebSocketServer } from 'ws';
import { serve } from './drive.mjs';
import { peerRoles } from './peer-roles.mjs';

const [role, url] = process.argv.slice(2);
const FUNCTION_ID = 'bench::echo';

function openSocket(address) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(address, { perMessageDeflate: false });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

async function rawCaller() {
  const ws = await openSocket(url);
  const pending = new Map();
  ws.on('message', (raw) => {
    const msg = JSON.parse(raw.toString());
    if (msg.type !== 'invocationresult') return;
    const resolve = pending.get(msg.invocation_id);
    pending.delete(msg.invocation_id);
    resolve?.(msg);
  });
  serve(
    (data) =>
      new Promise((resolve) => {
        const id = randomUUID();
        pending.set(id, resolve);
        ws.send(JSON.stringify({ type: 'invokefunction', invocation_id: id, function_id: FUNCTION_ID, data }));
      }),
  );
}

async function rawExecutor() {
  const ws = await openSocket(url);
  ws.on('message', (raw) => {
    const msg = JSON.parse(raw.toString());
    if (msg.type !== 'invokefunction' || !msg.invocation_id) return;
    ws.send(
      JSON.stringify({
        type: 'invocationresult',
        invocation_id: msg.invocation_id,
        function_id: msg.function_id,
        result: msg.data,
      }),
    );
  });
  ws.send(JSON.stringify({ type: 'registerfunction', id: FUNCTION_ID }));
  setTimeout(() => process.send({ ready: true }), 100);
}

function relay() {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  let caller;
  let executor;
  wss.on('connection', (ws, req) => {
    if (req.url === '/exec') executor = ws;
    else caller = ws;
    ws.on('message', (data) => {
      const peer = ws === caller ? executor : caller;
      peer?.send(data, { binary: false });
    });
  });
  wss.on('listening', () => process.send({ ready: true, port: wss.address().port }));
}

async function sdkClient(name) {
  // BENCH_SDK_DIST: another build of the SDK (a dist/index.js path) to compare against the current one
  const { registerWorker } = await import(process.env.BENCH_SDK_DIST ?? '@svc/sdk');
  const { default: pino } = await import('pino');
  const client = registerWorker(url, { workerName: name, logger: pino({ level: 'silent' }) });
  await client.ready();
  return client;
}

async function sdkExecutor() {
  const client = await sdkClient('bench-sdk-executor');
  client.registerFunction(FUNCTION_ID, (data) => data);
  setTimeout(() => process.send({ ready: true }), 100);
}

async function sdkCaller() {
  const client = await sdkClient('bench-sdk-caller');
  serve((data) => client.trigger({ function_id: FUNCTION_ID, payload: data }));
}

process.on('SIGTERM', () => process.exit(0));

const roles = {
  relay,
  executor: rawExecutor,
  caller: rawCaller,
  'sdk-executor': sdkExecutor,
  'sdk-caller': sdkCaller,
  ...peerRoles,
};
Promise.resolve()
  .then(() => roles[role](url))
  .catch((err) => {
    console.error(`bench role ${role} failed:`, err);
    process.exit(1);
  });
