/**
 * State benchmark: `state::set` and `state::get` calls per second from a worker through a real engine into a real
 * svc-state process, per store (KvStore in_memory, KvStore file_based, KvserverAdapter on Redis), each beside its
 * floor: the same store called directly in this process, measured in the same run. 64 calls in flight, 1,000
 * keys, a small JSON object as the value; each figure follows an unmeasured warm-up round (`WARM` calls). Each
 * engine row is also set beside its peer: an echo function in another worker process called through the same
 * engine with the same payloads, both warmed up, then measured in two interleaved rounds each, the best kept
 * (target ≥ 0.7× its calls/s). Each pair's kept rounds also give each process's CPU time per call: the caller (this
 * process), the engine, svc-state or the echo worker, and the Redis server when it runs on this machine.
 *
 *   node scripts/bench/state.mjs            (or through `npm run bench`)
 *   SVC_BENCH_STATE_OPS=5000 SVC_BENCH_STATE_WARM=20000 node scripts/bench/state.mjs
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pino from 'pino';
import { FileAdapter, MemoryAdapter, RedisAdapter } from '../../workers/state/dist/index.js';
import { registerWorker } from '../../sdk/dist/index.js';
import { freePort, waitUntil, probe, portOpen, round2 } from './lib/net.mjs';
import { runWhenCalledDirectly } from './lib/main.mjs';
import { cpuMicros, localProcess } from './lib/process-cpu.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const OPS = Number(process.env.SVC_BENCH_STATE_OPS ?? 10000);
/**
 * Unmeasured calls before each measured pair (`SVC_BENCH_STATE_WARM`): after 3,000 the engine and svc-state were
 * still being compiled, and both sides ran at ~2/3 of their steady rate, which put the Redis rows ~0.1 higher.
 */
const WARM = Number(process.env.SVC_BENCH_STATE_WARM ?? 20000);
const IN_FLIGHT = 64;
const REDIS_URL = process.env.SVC_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const KEYS = 1000;
const VALUE = { name: 'bench', count: 42, tags: ['a', 'b', 'c'], nested: { ok: true } };

/** Calls `op(i)` for i < count with IN_FLIGHT outstanding; resolves calls per second. */
async function pump(op, count) {
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < count) await op(next++);
    }),
  );
  return count / ((performance.now() - start) / 1000);
}

/**
 * One measured round of `count` calls: calls per second, and the CPU time per call (µs, user + system, in 10 ms
 * ticks: ±1 µs a call over 10,000 calls) of each named process that could be read before and after it.
 */
async function measuredRound(op, count, pids) {
  const before = Object.entries(pids).map(([name, pid]) => [name, pid, cpuMicros(pid)]);
  const rate = await pump(op, count);
  const cpu = {};
  for (const [name, pid, start] of before) {
    const end = cpuMicros(pid);
    if (start !== undefined && end !== undefined) cpu[name] = (end - start) / count;
  }
  return { rate, cpu };
}

/** "caller 9, engine 11, svc-state 14 (34 in all)": a round's CPU per call, process by process. */
function cpuText(cpu) {
  const parts = Object.entries(cpu).map(([name, us]) => `${name} ${us.toFixed(0)}`);
  const all = Object.values(cpu).reduce((sum, us) => sum + us, 0);
  return `${parts.join(', ')} (${all.toFixed(0)} in all)`;
}

/** The pid of the Redis server at REDIS_URL when it runs on this machine (its `INFO server`), else undefined. */
async function redisServerPid() {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const pid = Number(/^process_id:(\d+)/m.exec(await redis.info('server'))?.[1]);
    return localProcess(pid, 'redis-server');
  } catch {
    return undefined;
  } finally {
    redis.disconnect();
  }
}

/** A warm-up round (JIT, connections, first inserts) that is not measured, then OPS measured calls. */
async function drive(op) {
  await pump(op, WARM);
  return pump(op, OPS);
}

/**
 * A state call and its echo peer measured alike: both warmed up first, then interleaved rounds (state, echo, state,
 * echo), the best of each kept. Measured one after the other, the echo ran on an engine and a caller the state
 * call's rounds had already warmed, and the state call's first round still paid for compiling the engine's paths.
 */
async function sideBySide(stateOp, echoOp, statePids, echoPids) {
  await pump(stateOp, WARM);
  await pump(echoOp, WARM);
  let state = { rate: 0, cpu: {} };
  let echo = { rate: 0, cpu: {} };
  for (let round = 0; round < 2; round++) {
    const s = await measuredRound(stateOp, OPS, statePids);
    if (s.rate > state.rate) state = s;
    const e = await measuredRound(echoOp, OPS, echoPids);
    if (e.rate > echo.rate) echo = e;
  }
  return [state, echo];
}

async function direct(adapter) {
  await adapter.start();
  try {
    const set = await drive((i) => adapter.set('bench', `k${i % KEYS}`, VALUE));
    const get = await drive((i) => adapter.get('bench', `k${i % KEYS}`));
    return { set, get };
  } finally {
    await adapter.close();
  }
}

async function throughEngine(adapterConfig, onRedis) {
  const port = await freePort();
  const url = `ws://127.0.0.1:${port}`;
  const engine = spawn(
    process.execPath,
    [join(ROOT, 'engine/dist/main.js'), '--port', String(port), '--log-level', 'warn'],
    {
      stdio: 'ignore',
    },
  );
  let state;
  let caller;
  let echo;
  try {
    await waitUntil(() => probe(url), 15000);
    state = spawn(process.execPath, [join(ROOT, 'workers/state/dist/main.js')], {
      env: {
        ...process.env,
        SVC_URL: url,
        SVC_MODULE_CONFIG: JSON.stringify({ adapter: adapterConfig }),
        SVC_LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    caller = registerWorker(url, { workerName: 'bench-state-caller', logger: pino({ level: 'silent' }) });
    await caller.ready();
    const call = (function_id, payload) => caller.trigger({ function_id, payload });
    await waitUntil(
      () =>
        call('state::list_groups', {}).then(
          () => true,
          () => false,
        ),
      15000,
    );
    // the peer: an echo function in another worker process, through the same engine, with the same payloads;
    // each measured right after its state call, so a noisy moment weighs on both alike
    echo = spawn(process.execPath, [join(ROOT, 'scripts/bench/echo-worker.mjs')], {
      env: { ...process.env, SVC_URL: url, SVC_LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    await waitUntil(
      () =>
        call('bench::echo', {}).then(
          () => true,
          () => false,
        ),
      15000,
    );
    const setPayload = (i) => ({ scope: 'bench', key: `k${i % KEYS}`, value: VALUE });
    const getPayload = (i) => ({ scope: 'bench', key: `k${i % KEYS}` });
    const redisPid = onRedis ? await redisServerPid() : undefined;
    const statePids = { caller: process.pid, engine: engine.pid, 'svc-state': state.pid };
    if (redisPid !== undefined) statePids['redis-server'] = redisPid;
    const echoPids = { caller: process.pid, engine: engine.pid, 'echo worker': echo.pid };
    const [set, echoSet] = await sideBySide(
      (i) => call('state::set', setPayload(i)),
      (i) => call('bench::echo', setPayload(i)),
      statePids,
      echoPids,
    );
    const [get, echoGet] = await sideBySide(
      (i) => call('state::get', getPayload(i)),
      (i) => call('bench::echo', getPayload(i)),
      statePids,
      echoPids,
    );
    return {
      set: set.rate,
      get: get.rate,
      echo: { set: echoSet.rate, get: echoGet.rate },
      cpu: { set: { state: set.cpu, echo: echoSet.cpu }, get: { state: get.cpu, echo: echoGet.cpu } },
    };
  } finally {
    await caller?.shutdown().catch(() => undefined);
    echo?.kill('SIGKILL');
    state?.kill('SIGTERM');
    await new Promise((r) => (state && state.exitCode === null ? state.once('exit', r) : r()));
    engine.kill('SIGKILL');
  }
}

/**
 * Slow trigger handlers must not slow writers: `state::set` latency (p99, ms) while every write fires a trigger whose
 * handler sleeps 1 s, beside the same writes to a scope without a trigger (floor), through the engine into svc-state
 * (in_memory).
 */
async function slowTriggerLatency() {
  const port = await freePort();
  const url = `ws://127.0.0.1:${port}`;
  const engine = spawn(
    process.execPath,
    [join(ROOT, 'engine/dist/main.js'), '--port', String(port), '--log-level', 'warn'],
    {
      stdio: 'ignore',
    },
  );
  let state;
  let caller;
  try {
    await waitUntil(() => probe(url), 15000);
    const adapter = { class: 'modules::state::adapters::KvStore', config: { store_method: 'in_memory' } };
    state = spawn(process.execPath, [join(ROOT, 'workers/state/dist/main.js')], {
      env: { ...process.env, SVC_URL: url, SVC_MODULE_CONFIG: JSON.stringify({ adapter }), SVC_LOG_LEVEL: 'error' },
      stdio: 'ignore',
    });
    caller = registerWorker(url, { workerName: 'bench-state-latency', logger: pino({ level: 'silent' }) });
    await caller.ready();
    let fired = 0;
    caller.registerFunction('bench::slow-handler', async () => {
      fired++;
      await new Promise((r) => setTimeout(r, 1000));
      return null;
    });
    caller.registerTrigger({ type: 'state', function_id: 'bench::slow-handler', config: { scope: 'slow' } });
    const set = (scope, i) =>
      caller.trigger({ function_id: 'state::set', payload: { scope, key: `k${i % 100}`, value: VALUE } });
    await waitUntil(async () => {
      await set('slow', 0).catch(() => undefined);
      return fired > 0;
    }, 15000);
    const p99 = async (scope) => {
      const latencies = [];
      await pumpLatency((i) => set(scope, i), 2000, latencies);
      latencies.sort((a, b) => a - b);
      return latencies[Math.floor(latencies.length * 0.99)];
    };
    await p99('warmup');
    const plainBefore = await p99('plain');
    const slow = await p99('slow');
    // The floor (lower is better here) is the better of two runs around the measured one.
    const plain = Math.min(plainBefore, await p99('plain'));
    return { plain, slow };
  } finally {
    await caller?.shutdown().catch(() => undefined);
    state?.kill('SIGKILL');
    engine.kill('SIGKILL');
  }
}

async function pumpLatency(op, count, latencies) {
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) {
        const i = next++;
        const start = performance.now();
        await op(i);
        latencies.push(performance.now() - start);
      }
    }),
  );
}

async function deletePrefix(prefix) {
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
}

function stores(haveRedis) {
  const list = [
    {
      name: 'KvStore in_memory',
      adapter: () => new MemoryAdapter(),
      config: () => ({ class: 'modules::state::adapters::KvStore', config: { store_method: 'in_memory' } }),
    },
    {
      name: 'KvStore file_based (fsync before ack)',
      adapter: (dir, prefix) =>
        new FileAdapter({
          filePath: join(dir, `direct-${prefix.replace(/[^a-z0-9]/gi, '')}.db`),
          saveIntervalMs: 5000,
        }),
      config: (dir) => ({
        class: 'modules::state::adapters::KvStore',
        config: { store_method: 'file_based', file_path: join(dir, 'engine.db') },
      }),
    },
  ];
  if (haveRedis) {
    list.push({
      name: 'KvserverAdapter (Redis)',
      redis: true,
      adapter: (_dir, prefix) => new RedisAdapter({ url: REDIS_URL, keyPrefix: `${prefix}direct:` }),
      config: (_dir, prefix) => ({
        class: 'modules::state::adapters::KvserverAdapter',
        config: { kvserver_url: REDIS_URL, key_prefix: `${prefix}engine:` },
      }),
    });
  }
  return list;
}

export async function run({ log = console.log } = {}) {
  const rows = [];
  const unit = 'calls/s';
  const haveRedis = await portOpen(6379);
  if (!haveRedis) log('state bench: Redis is not reachable; skipping its rows (start it with scripts/services.sh)');
  for (const store of stores(haveRedis)) {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-state-'));
    const prefix = `svc-bench-state:${randomUUID().slice(0, 8)}:`;
    try {
      // The floor is measured before and after the engine rows and the higher figure kept, so a noisy moment
      // (or warm-up) never flatters the ratios.
      const before = await direct(store.adapter(dir, `${prefix}a:`));
      const engine = await throughEngine(store.config(dir, prefix), store.redis === true).catch((err) => {
        log(`state bench: ${store.name} through the engine failed: ${err instanceof Error ? err.message : err}`);
        return undefined;
      });
      const after = await direct(store.adapter(dir, `${prefix}b:`));
      const floor = { set: Math.max(before.set, after.set), get: Math.max(before.get, after.get) };
      for (const op of ['set', 'get']) {
        rows.push({ name: `state: ${op} direct, ${store.name} (floor)`, value: Math.round(floor[op]), unit });
        if (engine === undefined) continue;
        const ratio = Number((engine[op] / floor[op]).toFixed(3));
        log(
          `state bench: ${op} ${store.name}: ${engine[op].toFixed(0)} ${unit} via engine, ${floor[op].toFixed(0)} direct (${ratio}x)`,
        );
        const cpu = engine.cpu[op];
        log(
          `state bench: ${op} ${store.name}: CPU µs per call (user + system): state::${op} ${cpuText(cpu.state)}; the echo call (${engine.echo[op].toFixed(0)} ${unit}) ${cpuText(cpu.echo)}`,
        );
        rows.push({
          name: `state: state::${op} via engine + svc-state, ${store.name}`,
          value: Math.round(engine[op]),
          unit,
          floor: Math.round(floor[op]),
          ratio,
        });
        rows.push({
          name: `state: state::${op} via engine + svc-state, ${store.name}, vs an echo call`,
          value: Math.round(engine[op]),
          unit,
          peer: 'echo via engine',
          floor: Math.round(engine.echo[op]),
          ratio: round2(engine[op] / engine.echo[op]),
          target: '≥ 0.7',
        });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      if (haveRedis) await deletePrefix(prefix);
    }
  }
  const latency = await slowTriggerLatency().catch((err) => {
    log(`state bench: latency with a slow trigger failed: ${err instanceof Error ? err.message : err}`);
    return undefined;
  });
  if (latency !== undefined) {
    const ratio = Number((latency.slow / latency.plain).toFixed(2));
    log(
      `state bench: set p99 ${latency.slow.toFixed(2)} ms with a 1 s trigger handler, ${latency.plain.toFixed(2)} ms without (${ratio}x)`,
    );
    rows.push({ name: 'state: set p99 latency, no trigger (floor)', value: round2(latency.plain), unit: 'ms' });
    rows.push({
      name: 'state: set p99 latency while a 1 s trigger handler runs per write',
      value: round2(latency.slow),
      unit: 'ms',
      floor: round2(latency.plain),
      ratio,
    });
  }
  return rows;
}

runWhenCalledDirectly(import.meta.url, run);
