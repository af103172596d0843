/**
 * Cross-process test harness: starts the real engine (`node cli/dist/main.js -c <tmp yaml>`) on a free port and
 * real worker processes, and cleans every child up (a process `exit` hook SIGKILLs whatever a test forgot).
 *
 *   const engine = await startEngine({ modules: [{ name: 'svc-state', config: {...} }] });
 *   const worker = spawnWorker('test/fixtures/my-worker.mjs', { SVC_URL: engine.url });
 *   await waitForFunction(engine.url, 'state::get');
 *   ...
 *   afterAll(() => Promise.all([worker.stop(), engine.stop()]));
 *
 * Until the CLI can start an engine, `startEngine` falls back to the bare `engine/dist/main.js` (no modules).
 * Set SVC_TEST_VERBOSE=1 to echo children's output.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { stringify } from 'yaml';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI_MAIN = join(ROOT, 'cli/dist/main.js');
const ENGINE_MAIN = join(ROOT, 'engine/dist/main.js');
const VERBOSE = process.env.SVC_TEST_VERBOSE === '1';
const MAX_LOG_CHARS = 256 * 1024;

export interface StartEngineOptions {
  /** Module entries of the config file (`{ class, config }` or `{ name, config }`). */
  modules?: object[];
  /** Fixed port; default a free one. */
  port?: number;
  /** Extra environment for the engine process. */
  env?: Record<string, string>;
  /** Extra command-line arguments. */
  extraArgs?: string[];
  /** Extra top-level config keys (e.g. `invocation_timeout_ms`, `heartbeat_interval_ms`). */
  config?: Record<string, unknown>;
  /** How long to wait for the engine to accept workers; default 15000 ms. */
  readyTimeoutMs?: number;
  /** Use the bare `engine/dist/main.js` even when the CLI exists (no config file, no modules). */
  bare?: boolean;
}

export interface Child {
  proc: ChildProcess;
  /** Everything the process wrote so far (stdout and stderr, interleaved; the last 256 KiB). */
  logs(): string;
  /** Resolves when the output matches `pattern` (default timeout 30 s: spawning is slow on a loaded machine). */
  waitForOutput(pattern: RegExp | string, timeoutMs?: number): Promise<void>;
  /** SIGTERM, then waits for the exit (SIGKILL after `graceMs`, default 10000). Resolves the exit code. */
  stop(graceMs?: number): Promise<number | null>;
  /** SIGKILL and wait for the exit. */
  kill(): Promise<void>;
  readonly exited: boolean;
  /** Resolves on exit with the exit code (null when killed by a signal). */
  exit: Promise<number | null>;
}

export interface EngineProcess extends Child {
  url: string;
  port: number;
  /** The temp dir holding the config file (and the engine's cwd, so `./data` lands there). */
  dir: string;
  configPath: string;
  /** Stops the engine (SIGTERM) and starts it again on the same port with the same config. */
  restart(): Promise<EngineProcess>;
}

const children = new Set<ChildProcess>();
function killChildren(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
process.on('exit', killChildren);
// A test process ended by a signal runs no 'exit' hook: kill the children first, then end as the signal would.
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.once(signal, () => {
    killChildren();
    process.kill(process.pid, signal);
  });
}
// A test process whose runner went away (its IPC channel closed) leaves no engine behind it either.
if (process.connected) process.once('disconnect', killChildren);

/** Ports `freePort` gave this test process. */
const givenPorts = new Set<number>();

/**
 * Test ports come from below the kernel's ephemeral range (32768–60999 unless the host says otherwise): a port there
 * cannot be taken between the pick and the engine's bind by another process's `listen(0)` or by the local end of an
 * outgoing connection, as an ephemeral one can. Each vitest worker has its own slice, so two test files running at
 * once never pick the same one; 25672 (RabbitMQ's distribution port) is never handed out.
 */
const PORT_BASE = 20000;
const SLICE = 1500;
const RESERVED = new Set([25672]);

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : 32768;
  } catch {
    return 32768;
  }
}

const slice = (() => {
  const pool = Number(process.env.VITEST_POOL_ID ?? 1);
  const start = PORT_BASE + ((Number.isInteger(pool) && pool > 0 ? pool - 1 : 0) % 8) * SLICE;
  // a host whose ephemeral range starts lower than the slices end: fall back to ports the kernel picks
  return start + SLICE <= ephemeralLow() ? { start, next: Math.floor(Math.random() * SLICE) } : undefined;
})();

/** Binds `port` (0: the kernel picks) on every interface and gives back the port it got, or undefined if taken. */
function tryPort(port: number): Promise<number | undefined> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolvePort(undefined) : reject(err),
    );
    server.listen(port, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : undefined;
      server.close(() => resolvePort(bound));
    });
  });
}

/** A TCP port that was free a moment ago, and not one this process was already given. */
export async function freePort(): Promise<number> {
  for (let tries = 0; ; tries++) {
    let port: number | undefined;
    if (slice !== undefined && tries < SLICE) {
      const candidate = slice.start + (slice.next++ % SLICE);
      if (RESERVED.has(candidate) || givenPorts.has(candidate)) continue;
      port = await tryPort(candidate);
    } else {
      port = await tryPort(0); // the kernel may hand the same free port out twice in a row
    }
    if (port !== undefined && !givenPorts.has(port)) {
      givenPorts.add(port);
      return port;
    }
  }
}

/** Polls `cond` (sync or async) every 25 ms until it returns a truthy value; rejects after `timeoutMs`. */
export async function waitFor<T>(cond: () => T | Promise<T>, timeoutMs = 5000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await cond();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const suffix = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${suffix}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Spawns `node <scriptPath>` with `env` added to this process's environment. */
export function spawnWorker(scriptPath: string, env: Record<string, string> = {}, args: string[] = []): Child {
  return spawnChild(process.execPath, [resolve(ROOT, scriptPath), ...args], { ...process.env, ...env }, ROOT);
}

/** Starts a real engine process on a free port and waits until it accepts workers. */
export async function startEngine(options: StartEngineOptions = {}): Promise<EngineProcess> {
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const configPath = join(dir, 'svc-config.yaml');
  writeFileSync(configPath, stringify({ ...options.config, port, modules: options.modules ?? [] }));
  return launch(options, port, dir, configPath);
}

async function launch(
  options: StartEngineOptions,
  port: number,
  dir: string,
  configPath: string,
): Promise<EngineProcess> {
  const useCli = !options.bare && existsSync(CLI_MAIN);
  if (!useCli && (options.modules?.length ?? 0) > 0) {
    throw new Error('startEngine: modules need the CLI (cli/dist/main.js); build it with `npx tsc -b cli`');
  }
  const args = useCli
    ? [CLI_MAIN, '-c', configPath]
    : [ENGINE_MAIN, '--port', String(port), ...bareFlags(options.config ?? {})];
  args.push(...(options.extraArgs ?? []));
  const child = spawnChild(process.execPath, args, { ...process.env, ...options.env }, dir);
  const url = `ws://127.0.0.1:${port}`;
  try {
    await Promise.race([
      waitForEngine(url, options.readyTimeoutMs ?? 15000),
      child.exit.then((code) => {
        throw new Error(`engine exited with code ${code} before it was ready:\n${child.logs()}`);
      }),
    ]);
  } catch (err) {
    await child.kill();
    throw err;
  }
  const stop = child.stop.bind(child);
  const engine: EngineProcess = Object.assign(child, {
    url,
    port,
    dir,
    configPath,
    restart: async () => {
      await stop();
      return launch(options, port, dir, configPath);
    },
  });
  engine.stop = async (graceMs?: number) => {
    const code = await stop(graceMs);
    rmSync(dir, { recursive: true, force: true });
    return code;
  };
  return engine;
}

/** The bare engine takes the engine-level config keys as flags. */
const BARE_FLAGS: Record<string, string> = {
  invocation_timeout_ms: '--invocation-timeout-ms',
  heartbeat_interval_ms: '--heartbeat-interval-ms',
  heartbeat_timeout_ms: '--heartbeat-timeout-ms',
  max_payload_bytes: '--max-payload',
  max_buffered_bytes: '--max-buffered-bytes',
  handshake_timeout_ms: '--handshake-timeout-ms',
  log_level: '--log-level',
};

function bareFlags(config: Record<string, unknown>): string[] {
  return Object.entries(config).flatMap(([key, value]) => {
    const flag = BARE_FLAGS[key];
    if (flag === undefined) throw new Error(`startEngine: config key "${key}" is not supported by the bare engine`);
    return [flag, String(value)];
  });
}

/** Resolves once a WebSocket to `url` gets `workerregistered` (the engine accepts workers). */
export async function waitForEngine(url: string, timeoutMs = 15000): Promise<void> {
  await waitFor(() => probe(url), timeoutMs, `engine at ${url}`);
}

function probe(url: string): Promise<boolean> {
  return new Promise((resolveProbe) => {
    const ws = new WebSocket(url, { handshakeTimeout: 1000 });
    const done = (ok: boolean): void => {
      ws.removeAllListeners();
      ws.on('error', () => undefined);
      ws.terminate();
      resolveProbe(ok);
    };
    ws.on('message', (data) => done((data as Buffer).toString().includes('"workerregistered"')));
    ws.on('error', () => done(false));
    ws.on('close', () => done(false));
  });
}

/**
 * A raw protocol call (no SDK): opens a socket, sends `invokefunction`, resolves `{ result }` or `{ error }`.
 * Handy for engine introspection from tests (`engine::functions::list`).
 */
export function rawCall(
  url: string,
  functionId: string,
  data: unknown = {},
  timeoutMs = 5000,
): Promise<{ result?: unknown; error?: { code: string; message: string } }> {
  return new Promise((resolveCall, reject) => {
    const ws = new WebSocket(url);
    const invocationId = randomUUID();
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`rawCall ${functionId}: no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    ws.on('open', () => {
      ws.send(JSON.stringify({ type: 'invokefunction', invocation_id: invocationId, function_id: functionId, data }));
    });
    ws.on('message', (raw) => {
      const msg = JSON.parse((raw as Buffer).toString()) as {
        type: string;
        invocation_id?: string;
        result?: unknown;
        error?: never;
      };
      if (msg.type !== 'invocationresult' || msg.invocation_id !== invocationId) return;
      clearTimeout(timer);
      ws.close();
      resolveCall(msg.error !== undefined ? { error: msg.error } : { result: msg.result });
    });
    ws.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** Waits until `functionId` is registered (via `engine::functions::info`). */
export async function waitForFunction(url: string, functionId: string, timeoutMs = 10000): Promise<void> {
  await waitFor(
    async () => {
      const answer = await rawCall(url, 'engine::functions::info', { function_id: functionId }, 2000);
      return answer.error === undefined;
    },
    timeoutMs,
    `function ${functionId}`,
  );
}

function spawnChild(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Child {
  const proc = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(proc);
  let output = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    const text = chunk.toString();
    if (VERBOSE) process.stderr.write(text);
    output = (output + text).slice(-MAX_LOG_CHARS);
    for (const waiter of waiters) waiter();
  };
  proc.stdout?.on('data', onData);
  proc.stderr?.on('data', onData);
  let exited = false;
  const exit = new Promise<number | null>((resolveExit) => {
    proc.on('exit', (code) => {
      exited = true;
      children.delete(proc);
      resolveExit(code);
    });
    proc.on('error', (err) => {
      // spawn failed (bad cwd or binary): report it as output and as an exit, never as an uncaught error
      onData(Buffer.from(`spawn failed: ${err.message}\n`));
      exited = true;
      children.delete(proc);
      resolveExit(-1);
    });
  });
  const child: Child = {
    proc,
    exit,
    get exited() {
      return exited;
    },
    logs: () => output,
    waitForOutput: (pattern, timeoutMs = 30_000) =>
      new Promise<void>((resolveWait, reject) => {
        const matches = (): boolean => (typeof pattern === 'string' ? output.includes(pattern) : pattern.test(output));
        if (matches()) return resolveWait();
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${String(pattern)} in output:\n${output}`));
        }, timeoutMs);
        const check = (): void => {
          if (!matches()) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolveWait();
        };
        waiters.add(check);
      }),
    stop: async (graceMs = 10000) => {
      if (exited) return exit;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      const code = await exit;
      clearTimeout(timer);
      return code;
    },
    kill: async () => {
      if (exited) return;
      proc.kill('SIGKILL');
      await exit;
    },
  };
  return child;
}
