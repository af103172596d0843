/**
 * `svc [-c path]`: load the config (flag, ./svc-config.yaml, or the embedded default), start the engine with its
 * modules and supervised capability workers, print the ready banner, and stop everything on SIGTERM/SIGINT.
 */
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { ConfigError, loadConfig, loadYamlParser, type LoadedConfig } from '@svc/config';
import { whyUnbundled } from '@svc/config-kit/bundle';
import { onStopSignals } from '@svc/sdk/core';
import type { RunningSvc, WorkerStatus } from '@svc/engine/run';
import { formatBanner } from '../banner.js';
import { consoleLogger } from '../console-logger.js';
import { EXIT } from '../exit-codes.js';
import { hostLatencyNote, readIdleHalt } from '../start/host-notes.js';
import { startupFailureMessage } from '../start/startup-failure.js';

export interface StartArgs {
  configPath: string | undefined;
}

/** Set once svc is stopping (a signal, or a failed start-up). */
let stopping = false;

export async function startCommand(args: StartArgs): Promise<number | undefined> {
  const startedAt = performance.now();
  let loaded: LoadedConfig;
  await loadYamlParser();
  try {
    loaded = loadConfig(args.configPath);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`svc: ${err.message}\n`);
      return EXIT.usage;
    }
    throw err;
  }
  const { config, source, warnings } = loaded;
  const logger = consoleLogger('svc', config.log_level);
  logger.info(
    { config_file: source.path, source: source.kind },
    `using config file ${source.path} (${describeSource(source.kind)})`,
  );
  for (const warning of warnings) logger.warn(warning);

  // A signal during start-up is honoured once the engine is up (its children must be stopped, not orphaned).
  let early: NodeJS.Signals | undefined;
  const onEarlySignal = (signal: NodeJS.Signals): void => {
    early = signal;
  };
  process.on('SIGTERM', onEarlySignal);
  process.on('SIGINT', onEarlySignal);
  let running: RunningSvc;
  try {
    // The engine is loaded only once the config is valid, so a config error answers at once.
    const { runSvc } = await import('@svc/engine/run');
    running = await runSvc(config, { logger, dataDir: resolve(process.env['SVC_DATA_DIR'] || './data') });
  } catch (err) {
    const taken = (err as NodeJS.ErrnoException).code === 'EADDRINUSE' ? config.port : undefined;
    logger.fatal({ err }, `svc failed to start: ${(err as Error).message}`);
    process.stderr.write(startupFailureMessage('engine', (err as Error).message, source, taken));
    return EXIT.error;
  } finally {
    process.off('SIGTERM', onEarlySignal);
    process.off('SIGINT', onEarlySignal);
  }
  const stop = installShutdown(running, logger, config.shutdown_grace_ms);
  if (early) {
    stop(early);
    return undefined;
  }
  const workers = await running.waitForWorkers();
  if (stopping) return undefined;
  const failed = workers.filter((w) => w.state === 'failed');
  if (failed.length > 0) return failStartup(running, failed, source, logger);
  const readyMs = Math.round(performance.now() - startedAt);
  const unbundled = whyUnbundled();
  const hostNote = hostLatencyNote(readIdleHalt());
  logger.info(
    {
      url: running.engine.url,
      port: running.engine.port,
      config_file: source.path,
      workers,
      modules: running.modules,
      ready_ms: readyMs,
      ...(unbundled !== undefined ? { unbundled } : {}),
      ...(hostNote !== undefined ? { host_note: hostNote } : {}),
    },
    'svc ready',
  );
  process.stderr.write(formatBanner({ running, workers, source: source.path, readyMs, config, unbundled, hostNote }));
  for (const worker of workers) {
    if (worker.state !== 'ready')
      logger.warn({ worker }, `${worker.name} is ${worker.state}${worker.reason ? `: ${worker.reason}` : ''}`);
  }
  return undefined;
}

/** A capability worker that could not start fails start-up: its reason, then everything started is stopped. */
async function failStartup(
  running: RunningSvc,
  failed: WorkerStatus[],
  source: LoadedConfig['source'],
  logger: Logger,
): Promise<number> {
  stopping = true;
  for (const worker of failed) {
    const reason = worker.reason ?? 'it exited before it was ready';
    logger.fatal({ worker: worker.name, reason }, `svc failed to start: ${worker.name} could not start: ${reason}`);
    process.stderr.write(startupFailureMessage(worker.name, reason, source));
  }
  await running.close().catch((err: unknown) => logger.error({ err }, 'stopping after a failed start-up'));
  return EXIT.error;
}

function describeSource(kind: LoadedConfig['source']['kind']): string {
  switch (kind) {
    case 'flag':
      return 'from -c/--config';
    case 'cwd':
      return './svc-config.yaml in the working directory';
    case 'embedded':
      return 'the embedded default; pass -c <file> or add ./svc-config.yaml to use your own';
    case 'inline':
      return 'inline';
  }
}

/**
 * First signal: orderly stop (children get SIGTERM, then SIGKILL after the grace period). A second one: exit now,
 * unless it comes within `REPEATED_SIGNAL_MS` of the first: under `npm start` one Ctrl-C arrives twice (from the
 * terminal and from npm).
 */
function installShutdown(running: RunningSvc, logger: Logger, graceMs: number): (signal: NodeJS.Signals) => void {
  const exitNow = (signal: NodeJS.Signals): void => {
    logger.warn({ signal }, 'second signal: exiting now');
    process.exit(EXIT.error);
  };
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return exitNow(signal); // a failed start-up is stopping already
    stopping = true;
    logger.info({ signal }, 'svc stopping');
    // A module that hangs on close must not keep svc alive forever.
    const watchdog = setTimeout(() => {
      logger.error('svc did not stop in time; exiting');
      process.exit(EXIT.error);
    }, graceMs + 3000);
    watchdog.unref();
    running.close().then(
      () => {
        logger.info('svc stopped');
        process.exit(EXIT.ok);
      },
      (err: unknown) => {
        logger.error({ err }, 'svc stopped with an error');
        process.exit(EXIT.error);
      },
    );
  };
  return onStopSignals({ stop, force: exitNow }).deliver;
}
