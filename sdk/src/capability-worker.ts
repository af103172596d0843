/**
 * The runtime every capability worker (svc-http, svc-state, ...) runs in, whether the engine spawned it or it was
 * started by hand with `SVC_URL`:
 * - a pino logger on stderr (JSON; level from `SVC_LOG_LEVEL`, default info);
 * - one SDK client to `SVC_URL`; `start(client, logger)` runs once the engine has registered the worker;
 * - SIGTERM / SIGINT: `close()` the worker (bounded), shut the client down, exit 0. A second signal exits at once,
 *   unless it comes within `REPEATED_SIGNAL_MS` of the first (the same Ctrl-C, from the terminal and from npm), or is
 *   the supervisor's SIGTERM to a supervised worker (the supervisor ends its grace period with SIGKILL);
 * - `SVC_SUPERVISED=1` (set by the engine's supervisor): when the engine connection is lost and not regained within
 *   a short grace period, exit 0, so that a `kill -9` of the engine leaves no orphan. Unsupervised, it reconnects
 *   forever;
 * - uncaught exceptions are logged and end the process (exit 1); unhandled rejections are logged.
 */
import type { Logger } from 'pino';
import { createLogger } from './logger.js';
import { onStopSignals } from './stop-signals.js';
import { setLogForwarder } from './telemetry/log-forward.js';
import type { ConnectionState, SvcClient } from './types.js';
import { registerWorker } from './worker.js';

export interface CapabilityWorker {
  /** Also the worker name shown by `engine::workers::list`. */
  name: string;
  start(client: SvcClient, logger: Logger): Promise<{ close(): Promise<void> }>;
  /** How long `close()` may take on a signal before the process exits anyway. Default 5000 ms. */
  closeTimeoutMs?: number;
}

export interface RunningCapabilityWorker {
  client: SvcClient;
  logger: Logger;
  /** Closes the worker and the client, then exits the process with `code`. */
  stop(code: number, why: string): Promise<never>;
}

/** How long a supervised worker waits for a lost engine connection to come back before it exits. */
const SUPERVISED_GRACE_MS = 2000;
/** A supervised worker that cannot reach the engine at all within this time exits too. */
const SUPERVISED_FIRST_CONNECT_MS = 10000;

export async function runCapabilityWorker(worker: CapabilityWorker): Promise<RunningCapabilityWorker> {
  const logger = createLogger(worker.name);
  const supervised = process.env.SVC_SUPERVISED === '1';
  installCrashLogging(logger);
  let handle: { close(): Promise<void> } | undefined;
  let stopping: Promise<never> | undefined;
  const watchdog = supervised ? new EngineWatchdog((why) => void stop(0, why)) : undefined;

  const client = registerWorker(process.env.SVC_URL, {
    workerName: worker.name,
    logger,
    // Supervised: retry quickly, so a short engine blip is survived within the grace period.
    ...(supervised ? { reconnectionConfig: { initialDelayMs: 200, maxDelayMs: 1000 } } : {}),
    onConnectionStateChange: (state) => watchdog?.onState(state),
  });

  const stop = (code: number, why: string): Promise<never> => {
    stopping ??= (async () => {
      logger.info({ code, why }, `${worker.name} stopping`);
      watchdog?.cancel();
      await withDeadline(handle?.close(), worker.closeTimeoutMs ?? 5000, logger, 'worker close');
      await withDeadline(client.shutdown(), 2000, logger, 'client shutdown');
      process.exit(code);
    })();
    return stopping;
  };
  const exitNow = (signal: NodeJS.Signals): never => process.exit(code130(signal));
  // a Ctrl-C reaches a supervised worker and its supervisor, which then sends SIGTERM: that one must not cut the
  // close short (the supervisor's own grace period ends in SIGKILL)
  const forces = (signal: NodeJS.Signals): boolean => !(supervised && signal === 'SIGTERM');
  onStopSignals({
    // already stopping without a signal (the engine lost, a failed start): a signal is the second request
    stop: (signal) => (stopping !== undefined && forces(signal) ? exitNow(signal) : void stop(0, signal)),
    force: exitNow,
    forces,
  });

  watchdog?.arm(SUPERVISED_FIRST_CONNECT_MS, 'engine not reachable');
  await client.ready();
  const telemetry = client.telemetry;
  if (telemetry !== undefined) setLogForwarder((level, message, attrs) => telemetry.log(level, message, attrs));
  try {
    handle = await worker.start(client, logger);
  } catch (err) {
    logger.fatal({ err }, `${worker.name} failed to start`);
    await stop(1, 'start failed');
  }
  // its functions and trigger types are registered at the engine before anyone is told it is ready
  await client.synced();
  // `svc_ready`: the supervisor's sign that start-up is over (an exit before it fails svc's start-up). A supervised
  // worker writes it whatever its level (the engine shows the line only when its own level allows).
  const readyLogger = supervised && !logger.isLevelEnabled('info') ? logger.child({}, { level: 'info' }) : logger;
  readyLogger.info({ worker_id: client.workerId, supervised, svc_ready: true }, `${worker.name} started`);
  return { client, logger, stop };
}

/** Exits a supervised worker whose engine connection stays down longer than the grace period. */
class EngineWatchdog {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly onExpired: (why: string) => void) {}

  onState(state: ConnectionState): void {
    if (state.connected) this.cancel();
    else if (!state.willReconnect) this.onExpired('engine connection closed for good');
    else if (this.timer === undefined) this.arm(SUPERVISED_GRACE_MS, 'engine connection lost');
  }

  arm(ms: number, why: string): void {
    this.cancel();
    this.timer = setTimeout(() => this.onExpired(`${why} for ${ms} ms (supervised)`), ms);
  }

  cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

async function withDeadline(work: Promise<void> | undefined, ms: number, logger: Logger, what: string): Promise<void> {
  if (work === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      logger.warn({ ms }, `${what} did not finish in time; going on`);
      resolve();
    }, ms);
  });
  try {
    await Promise.race([work.catch((err: unknown) => logger.error({ err }, `${what} failed`)), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function installCrashLogging(logger: Logger): void {
  process.on('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception; exiting');
    process.exit(1);
  });
  process.on('unhandledRejection', (reason) => {
    logger.error({ err: reason }, 'unhandled promise rejection');
  });
}

function code130(signal: NodeJS.Signals): number {
  return signal === 'SIGINT' ? 130 : 143;
}
