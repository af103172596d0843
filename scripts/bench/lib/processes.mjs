/* global clearTimeout, fetch */
// Processes of the benchmarks that are programs of the tree (the engine, svc-http, bench workers, peers' servers):
// started from the repository's root, ready once their output shows a given text, stopped with SIGTERM (so a
// process under --cpu-prof writes its profile) and SIGKILL after 5 s.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './net.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * Starts `script` (a path from the root) with node; `ready` resolves once its stdout or stderr shows `readyText`
 * (at once without one) and rejects if it exits first or shows nothing in 15 s.
 */
export function start(script, args, env, readyText, execArgv = []) {
  const proc = spawn(process.execPath, [...execArgv, join(ROOT, script), ...args], {
    cwd: ROOT,
    env: { ...process.env, SVC_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const ready = new Promise((res, rej) => {
    if (readyText === undefined) res();
    const timer = setTimeout(() => rej(new Error(`${script} not ready in 15 s:\n${out}`)), 15000);
    if (readyText === undefined) clearTimeout(timer);
    const onData = (chunk) => {
      out += chunk;
      if (readyText !== undefined && out.includes(readyText)) {
        clearTimeout(timer);
        res();
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (code) => rej(new Error(`${script} exited with ${code}:\n${out}`)));
  });
  const stop = () =>
    new Promise((res) => {
      if (proc.exitCode !== null) return res();
      proc.once('exit', () => res());
      proc.kill('SIGTERM');
      setTimeout(() => proc.kill('SIGKILL'), 5000).unref();
    });
  return { proc, ready, stop };
}

/** Resolves once `url` answers `status`; throws after `timeoutMs`. */
export async function waitForStatus(url, status, timeoutMs = 10000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status === status) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The HTTP bench's path: the engine, svc-http on a free port and the bench worker behind GET /bench/hello, each
 * started with its own node options (`execArgv.engine`, `.http`, `.worker`) and pushed onto `procs` (for the
 * caller to stop). Resolves once the route answers 200, with the three processes and the route's URL.
 */
export async function startHttpPath(procs, execArgv = {}) {
  const enginePort = await freePort();
  const engine = start(
    'engine/dist/main.js',
    ['--port', String(enginePort), '--log-level', 'warn'],
    {},
    undefined,
    execArgv.engine,
  );
  procs.push(engine);
  const svcUrl = `ws://127.0.0.1:${enginePort}`;
  const httpPort = await freePort();
  // The engine logs nothing at warn on start: wait for its port by letting svc-http connect (it retries).
  const http = start(
    'workers/http/dist/main.js',
    [],
    {
      SVC_URL: svcUrl,
      SVC_LOG_LEVEL: 'info',
      SVC_MODULE_CONFIG: JSON.stringify({ host: '127.0.0.1', port: httpPort }),
    },
    'svc-http listening',
    execArgv.http,
  );
  procs.push(http);
  await http.ready;
  const worker = start('scripts/bench/http-bench-worker.mjs', [], { SVC_URL: svcUrl }, 'ready', execArgv.worker);
  procs.push(worker);
  await worker.ready;
  const url = `http://127.0.0.1:${httpPort}/bench/hello`;
  await waitForStatus(url, 200);
  return { engine, http, worker, url };
}

/**
 * The pid of a nats-server process on this machine (its CPU time is part of a path through NATS), or undefined when
 * none runs here (NATS on another host or in a container).
 */
export function natsServerPid() {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'nats-server') return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}
