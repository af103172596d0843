// Start-up time of `svc`, from spawning the process to its "svc ready" banner (the engine accepts workers and every
// spawned capability worker has registered). Rows: the engine alone (empty module list), the full embedded default
// stack (all five capability workers), and the floor: a bare `node -e 0` start in the same run. Each executable
// runs with the code cache its earlier starts left (config/kit/src/compile-cache.ts); the engine alone without it
// is reported beside.
// Targets: engine alone < 300 ms, full default stack < 1.5 s.
//   node scripts/bench/run.mjs startup      (needs `npm run build` first)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearTimeout, setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { freePort } from './lib/net.mjs';
import { cpuMicros } from './lib/process-cpu.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = join(ROOT, 'cli/dist/main.js');

/** Spawns `args`, resolves the ms until `pattern` shows on stdout/stderr (or the exit, for the floor), then stops it. */
function timeUntil(args, { pattern, env = {}, cwd = ROOT, timeoutMs = 30000 }) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let done = false;
    const timer = setTimeout(
      () => finish(new Error(`no "${pattern}" within ${timeoutMs} ms:\n${output.slice(-2000)}`)),
      timeoutMs,
    );
    const finish = (result) => {
      if (done) return;
      if (typeof result === 'number') cpuAtReady.push((cpuMicros(child.pid) ?? NaN) / 1000);
      done = true;
      clearTimeout(timer);
      child.once('exit', () => (result instanceof Error ? reject(result) : resolve(result)));
      if (child.exitCode !== null || child.signalCode !== null) child.emit('exit');
      else child.kill('SIGTERM');
    };
    const onData = (chunk) => {
      output += chunk;
      if (pattern && output.includes(pattern)) finish(performance.now() - t0);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      if (!pattern && !done) {
        done = true;
        clearTimeout(timer);
        resolve(performance.now() - t0);
      } else if (!done) finish(new Error(`exited with ${code} before "${pattern}":\n${output.slice(-2000)}`));
    });
  });
}

const cpuAtReady = [];

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

export async function run({ log }) {
  const floorRuns = [];
  for (let i = 0; i < 5; i++) floorRuns.push(await timeUntil(['-e', '0'], {}));
  const floor = median(floorRuns);
  log(`node -e 0: ${floor.toFixed(0)} ms`);

  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-startup-'));
  const engineRuns = [];
  for (let i = 0; i < 5; i++) {
    const file = join(dir, `engine-${i}.yaml`);
    writeFileSync(file, `port: ${await freePort()}\nmodules: []\n`);
    engineRuns.push(await timeUntil([CLI, '-c', file], { pattern: 'svc ready' }));
  }
  const engine = median(engineRuns);
  const engineCpu = median(cpuAtReady.splice(0));
  log(`engine alone: ${engineRuns.map((v) => v.toFixed(0)).join(', ')} ms`);

  // The first start after a build that made the bundle again (which removes its code cache), for reference.
  const uncachedRuns = [];
  for (let i = 0; i < 5; i++) {
    const file = join(dir, `engine-uncached-${i}.yaml`);
    writeFileSync(file, `port: ${await freePort()}\nmodules: []\n`);
    uncachedRuns.push(await timeUntil([CLI, '-c', file], { pattern: 'svc ready', env: { SVC_COMPILE_CACHE: 'off' } }));
  }
  const uncached = median(uncachedRuns);
  const uncachedCpu = median(cpuAtReady.splice(0));
  log(`engine alone without the code cache: ${uncachedRuns.map((v) => v.toFixed(0)).join(', ')} ms`);

  const stackRuns = [];
  for (let i = 0; i < 3; i++) {
    const dataDir = mkdtempSync(join(dir, 'data-'));
    const env = {
      SVC_PORT: String(await freePort()),
      SVC_HTTP_PORT: String(await freePort()),
      SVC_STREAM_PORT: String(await freePort()),
      SVC_HTTP_HOST: '127.0.0.1',
      SVC_STREAM_HOST: '127.0.0.1',
      SVC_DATA_DIR: dataDir,
    };
    // cwd = ROOT has no svc-config.yaml: the embedded default is used.
    stackRuns.push(await timeUntil([CLI], { pattern: 'svc ready', env }));
  }
  const stack = median(stackRuns);
  log(`full default stack: ${stackRuns.map((v) => v.toFixed(0)).join(', ')} ms`);
  rmSync(dir, { recursive: true, force: true });

  return [
    { name: 'node process start (floor)', value: Math.round(floor), unit: 'ms' },
    {
      name: 'svc to ready, engine alone',
      value: Math.round(engine),
      unit: 'ms',
      peer: 'node -e 0',
      floor: Math.round(floor),
      ratio: +(engine / floor).toFixed(2),
      target: '< 300 ms',
    },
    {
      name: 'engine alone: CPU time of the svc process until ready (less sensitive to machine load)',
      value: Math.round(engineCpu),
      unit: 'ms',
    },
    {
      name: 'engine alone without the code cache (the first start after a rebundling build): to ready; CPU',
      value: `${Math.round(uncached)}; ${Math.round(uncachedCpu)}`,
      unit: 'ms',
    },
    {
      name: 'svc to ready, full default stack',
      value: Math.round(stack),
      unit: 'ms',
      peer: 'node -e 0',
      floor: Math.round(floor),
      ratio: +(stack / floor).toFixed(2),
      target: '< 1.5 s',
    },
  ];
}
