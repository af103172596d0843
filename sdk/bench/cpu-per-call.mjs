/* eslint-disable no-console -- a benchmark prints its figures */
// SDK cost per call, in CPU time (robust on a busy machine, unlike wall time): a caller and an executor on our
// SDK against the same pair written on bare `ws` (parse, route by id, one JSON.stringify per frame), both through
// the same bare engine. Prints µs of CPU per call in the caller and in the executor, and the SDK/raw ratio.
//   node sdk/bench/cpu-per-call.mjs [calls=20000] [outstanding=64] [payloadBytes=100]
import { fork, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import WebSocket from 'ws';

const HERE = fileURLToPath(import.meta.url);
const ROOT = join(dirname(HERE), '../..');
const FN = 'bench::echo';

async function sdkPair(url) {
  const { registerWorker } = await import('../dist/index.js');
  const { pino } = await import('pino');
  const logger = pino({ level: 'silent' });
  const c = registerWorker(url, { workerName: `bench-${process.argv[3]}`, logger });
  await c.ready();
  return {
    serve: () => c.registerFunction(FN, (data) => data),
    call: (data) => c.trigger({ function_id: FN, payload: data }),
  };
}

async function rawPair(url) {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  await new Promise((r) => ws.once('open', r));
  const pending = new Map();
  let serving = false;
  ws.on('message', (raw) => {
    const m = JSON.parse(raw.toString());
    if (m.type === 'invocationresult') {
      const r = pending.get(m.invocation_id);
      pending.delete(m.invocation_id);
      r?.(m.result);
    } else if (serving && m.type === 'invokefunction' && m.invocation_id) {
      ws.send(
        JSON.stringify({
          type: 'invocationresult',
          invocation_id: m.invocation_id,
          function_id: m.function_id,
          result: m.data,
        }),
      );
    }
  });
  return {
    serve: () => {
      serving = true;
      ws.send(JSON.stringify({ type: 'registerfunction', id: FN }));
    },
    call: (data) =>
      new Promise((resolve) => {
        const id = randomUUID();
        pending.set(id, resolve);
        ws.send(JSON.stringify({ type: 'invokefunction', invocation_id: id, function_id: FN, data }));
      }),
  };
}

/** Child side: `role <sdk|raw> <executor|caller> <url>`; reports CPU µs used between 'start' and 'stop'. */
async function child([, kind, part, url]) {
  const pair = kind === 'sdk' ? await sdkPair(url) : await rawPair(url);
  let cpu0;
  process.on('message', async (msg) => {
    if (msg.cmd === 'start') {
      cpu0 = process.cpuUsage();
      process.send({ started: true });
    }
    if (msg.cmd === 'stop') {
      const d = process.cpuUsage(cpu0);
      process.send({ cpuUs: d.user + d.system });
    }
    if (msg.cmd === 'run') {
      const data = { s: 'x'.repeat(Math.max(0, msg.bytes - 8)) };
      for (let i = 0; i < 500; i++) await pair.call(data); // warm-up
      const c0 = process.cpuUsage();
      let issued = 0;
      const lane = async () => {
        while (issued < msg.calls) {
          issued++;
          await pair.call(data);
        }
      };
      await Promise.all(Array.from({ length: msg.outstanding }, lane));
      const d = process.cpuUsage(c0);
      process.send({ cpuUs: d.user + d.system });
    }
  });
  if (part === 'executor') pair.serve();
  setTimeout(() => process.send({ ready: true }), 200);
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitForEngine(url) {
  for (let i = 0; i < 300; i++) {
    const ok = await new Promise((resolve) => {
      const ws = new WebSocket(url);
      ws.once('open', () => (ws.terminate(), resolve(true)));
      ws.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`engine at ${url} did not come up`);
}

function role(args) {
  const p = fork(HERE, ['role', ...args], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise((_, reject) =>
    p.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}`))),
  );
  exited.catch(() => undefined);
  const next = () => Promise.race([new Promise((resolve) => p.once('message', resolve)), exited]);
  return { p, next, ask: (cmd) => (p.send(cmd), next()) };
}

async function measure(kind, url, opts) {
  const ex = role([kind, 'executor', url]);
  await ex.next();
  const ca = role([kind, 'caller', url]);
  await ca.next();
  await ex.ask({ cmd: 'start' });
  const caller = await ca.ask({ cmd: 'run', ...opts });
  const executor = await ex.ask({ cmd: 'stop' });
  ex.p.removeAllListeners('exit');
  ca.p.removeAllListeners('exit');
  ex.p.kill();
  ca.p.kill();
  return { caller: caller.cpuUs / opts.calls, executor: executor.cpuUs / (opts.calls + 500) };
}

async function main() {
  const [calls = 20000, outstanding = 64, bytes = 100] = process.argv.slice(2).map(Number);
  const port = await freePort();
  const engine = spawn(
    process.execPath,
    [join(ROOT, 'engine/dist/main.js'), '--port', String(port), '--log-level', 'warn'],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = `ws://127.0.0.1:${port}`;
  await waitForEngine(url);
  const opts = { calls, outstanding, bytes };
  const rows = [];
  for (const round of [1, 2]) {
    for (const kind of round === 1 ? ['raw', 'sdk'] : ['sdk', 'raw'])
      rows.push({ kind, ...(await measure(kind, url, opts)) });
  }
  engine.kill();
  const best = (kind, part) => Math.min(...rows.filter((r) => r.kind === kind).map((r) => r[part]));
  console.log(`CPU µs per call (${calls} calls, ${outstanding} outstanding, ${bytes} B payload; best of 2)`);
  for (const part of ['caller', 'executor']) {
    const sdk = best('sdk', part);
    const raw = best('raw', part);
    console.log(
      `${part.padEnd(9)} sdk ${sdk.toFixed(1)} µs   raw ws ${raw.toFixed(1)} µs   ratio ${(sdk / raw).toFixed(2)}`,
    );
  }
}

if (process.argv[2] === 'role') child(process.argv.slice(2));
else
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
