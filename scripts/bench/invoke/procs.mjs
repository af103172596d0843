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

/** Forks a role and resolves once it reports ready; `ask(cmd)` sends one IPC command and resolves its answer. */
export function role(name, url, env = {}, execArgv = []) {
  // BENCH_ROLE_PROF_DIR=<dir>: every role (caller, executor, relay, peers) runs under --cpu-prof, written there
  const profDir = process.env.BENCH_ROLE_PROF_DIR;
  const child = fork(ROLES, [name, url], {
    cwd: ROOT,
    execArgv: profDir
      ? [...execArgv, '--cpu-prof', `--cpu-prof-dir=${profDir}`, `--cpu-prof-name=${name}.cpuprofile`]
      : execArgv,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
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
 * ends it with SIGTERM (a SIGKILLed process writes none).
 */
export async function startEngineProcess({ cpuProfDir } = {}) {
  const port = await freePort();
  const prof = cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : [];
  const proc = spawn(
    process.execPath,
    [...prof, join(ROOT, 'engine/dist/main.js'), '--port', String(port), '--log-level', 'warn'],
    {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = `ws://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
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
  throw new Error('engine did not start');
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
