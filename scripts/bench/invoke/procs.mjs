// Processes of the invoke benchmarks: a role of invoke/roles.mjs forked and driven over IPC, the engine on a free
// port, and the end of a child process (a process's CPU time is read by lib/process-cpu.mjs).
import { fork, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { freePort } from '../lib/net.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '../../..');
const ROLES = join(HERE, 'roles.mjs');

/**
 * Forks a role and resolves once it reports ready; `ask(cmd)` sends one IPC command and resolves its answer.
 * `wrapper` (a command and its arguments, such as valgrind's) runs the role's Node.js under it, still over IPC.
 */
export function role(name, url, env = {}, execArgv = [], wrapper = undefined) {
  // BENCH_ROLE_PROF_DIR=<dir>: every role (caller, executor, relay, peers) runs under --cpu-prof, written there
  const profDir = process.env.BENCH_ROLE_PROF_DIR;
  const nodeArgs = profDir
    ? [...execArgv, '--cpu-prof', `--cpu-prof-dir=${profDir}`, `--cpu-prof-name=${name}.cpuprofile`]
    : execArgv;
  const options = {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  };
  const child = wrapper
    ? spawn(wrapper[0], [...wrapper.slice(1), process.execPath, ...nodeArgs, ROLES, name, url], options)
    : fork(ROLES, [name, url], { ...options, execArgv: nodeArgs });
  const ready = new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`bench role ${name} exited with ${code}`)));
  });
  return {
    child,
    ready,
    ask: (cmd) =>
      new Promise((resolve) => {
        child.once('message', resolve);
        child.send(cmd);
      }),
    // SIGTERM lets a role run with NODE_OPTIONS=--cpu-prof write its profile (roles exit at once on it)
    stop: () => stopProcess(child, 'SIGTERM'),
  };
}

/**
 * The engine on a free port. `cpuProfDir` runs it under `--cpu-prof`: the profile is written there when `stop()`
 * ends it with SIGTERM (a SIGKILLed process writes none). `wrapper` runs it under another command (valgrind's),
 * given `readyMs` to answer (10 s by default); `execArgv` are Node.js options for it.
 */
export async function startEngineProcess({ cpuProfDir, wrapper, readyMs = 10_000, execArgv = [] } = {}) {
  const port = await freePort();
  const prof = cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : [];
  const args = [...execArgv, ...prof, join(ROOT, 'engine/dist/main.js'), '--port', String(port), '--log-level', 'warn'];
  const proc = wrapper
    ? spawn(wrapper[0], [...wrapper.slice(1), process.execPath, ...args], {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'inherit'],
      })
    : spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `ws://127.0.0.1:${port}`;
  const deadline = Date.now() + readyMs;
  while (Date.now() < deadline) {
    const ok = await new Promise((resolve) => {
      const ws = new WebSocket(url);
      ws.on('message', () => {
        ws.terminate();
        resolve(true);
      });
      ws.on('error', () => resolve(false));
    });
    if (ok) return { url, pid: proc.pid, stop: () => stopProcess(proc, cpuProfDir ? 'SIGTERM' : 'SIGKILL') };
    await new Promise((r) => setTimeout(r, 50));
  }
  proc.kill('SIGKILL');
  throw new Error(`engine did not answer on ${url} within ${readyMs} ms`);
}

/** Ends a child process and resolves once it has exited (SIGKILL after 2 s). */
export function stopProcess(proc, signal = 'SIGTERM') {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    proc.once('exit', () => resolve());
    proc.kill(signal);
    setTimeout(() => proc.kill('SIGKILL'), 2000).unref();
  });
}
