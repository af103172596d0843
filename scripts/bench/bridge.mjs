/**
 * Bridge benchmark: calls per second and p99 latency of a function on engine B, called from a worker on engine A
 * through `modules::bridge_client::BridgeClientModule` (`forward`), beside its floor: the same function called by a
 * worker connected to engine B directly, measured in the same run. 64 calls in flight, a small JSON payload; each
 * figure follows an unmeasured warm-up round.
 *
 *   node scripts/bench/bridge.mjs            (or `node scripts/bench/run.mjs bridge`)
 *   SVC_BENCH_BRIDGE_OPS=5000 node scripts/bench/bridge.mjs
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { stringify } from 'yaml';
import { registerWorker } from '../../sdk/dist/index.js';
import { freePort, probe, round2, waitUntil } from './lib/net.mjs';
import { runWhenCalledDirectly } from './lib/main.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const OPS = Number(process.env.SVC_BENCH_BRIDGE_OPS ?? 10000);
const IN_FLIGHT = 64;
const PAYLOAD = { order: 42, items: ['a', 'b', 'c'], note: 'bench' };

/** Runs `count` calls with IN_FLIGHT outstanding; resolves { perSecond, p99 }. */
async function pump(call, count) {
  const latencies = [];
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next++ < count) {
        const t = performance.now();
        await call();
        latencies.push(performance.now() - t);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    perSecond: count / ((performance.now() - start) / 1000),
    p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
  };
}

async function measure(client, functionId) {
  const call = () => client.trigger({ function_id: functionId, payload: PAYLOAD });
  await pump(call, Math.min(OPS, 3000));
  return pump(call, OPS);
}

function engineProcess(port, modules, dir) {
  const config = join(dir, `engine-${port}.yaml`);
  writeFileSync(config, stringify({ port, log_level: 'warn', modules }));
  return spawn(process.execPath, [join(ROOT, 'cli/dist/main.js'), '-c', config], { stdio: 'ignore', cwd: dir });
}

export async function run({ log = console.log } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-bridge-'));
  const [portA, portB] = await Promise.all([freePort(), freePort()]);
  const urlA = `ws://127.0.0.1:${portA}`;
  const urlB = `ws://127.0.0.1:${portB}`;
  const bridge = {
    class: 'modules::bridge_client::BridgeClientModule',
    config: {
      url: urlB,
      service_id: 'bench-a',
      forward: [{ local_function: 'bench::echo', remote_function: 'bench::echo' }],
    },
  };
  const engines = [engineProcess(portB, [], dir), engineProcess(portA, [bridge], dir)];
  const silent = pino({ level: 'silent' });
  const clients = [];
  try {
    await waitUntil(() => probe(urlB), 15000);
    await waitUntil(() => probe(urlA), 15000);
    const provider = registerWorker(urlB, { workerName: 'bench-provider', logger: silent });
    provider.registerFunction('bench::echo', (p) => p);
    const onB = registerWorker(urlB, { workerName: 'bench-direct', logger: silent });
    const onA = registerWorker(urlA, { workerName: 'bench-bridged', logger: silent });
    clients.push(provider, onB, onA);
    await Promise.all(clients.map((c) => c.ready()));
    await waitUntil(
      () =>
        onA.trigger({ function_id: 'bench::echo', payload: {}, timeoutMs: 1000 }).then(
          () => true,
          () => false,
        ),
      15000,
    );
    const floor = await measure(onB, 'bench::echo');
    const bridged = await measure(onA, 'bench::echo');
    const ratio = Number((floor.perSecond / bridged.perSecond).toFixed(2));
    log(
      `bridge bench: ${Math.round(bridged.perSecond)} calls/s through the bridge, ${Math.round(floor.perSecond)} direct (${ratio}x)`,
    );
    return [
      {
        name: 'bridge: calls/s, caller on the same engine (floor)',
        value: Math.round(floor.perSecond),
        unit: 'calls/s',
      },
      {
        name: 'bridge: calls/s, caller on another engine through forward',
        value: Math.round(bridged.perSecond),
        unit: 'calls/s',
        floor: Math.round(floor.perSecond),
        ratio,
      },
      { name: 'bridge: p99 latency, same engine (floor)', value: round2(floor.p99), unit: 'ms' },
      {
        name: 'bridge: p99 latency through forward',
        value: round2(bridged.p99),
        unit: 'ms',
        floor: round2(floor.p99),
        ratio: Number((bridged.p99 / floor.p99).toFixed(2)),
      },
    ];
  } finally {
    await Promise.all(clients.map((c) => c.shutdown().catch(() => undefined)));
    for (const e of engines) e.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

runWhenCalledDirectly(import.meta.url, run);
