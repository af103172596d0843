#!/usr/bin/env node
/**
 * The engine executable: a bare engine (no config file; the built-in modules only) for tests and benchmarks:
 * `node engine/dist/main.js [--port N] [--host H] [--invocation-timeout-ms N] [--heartbeat-interval-ms N]
 * [--heartbeat-timeout-ms N] [--max-payload N] [--max-buffered-bytes N] [--handshake-timeout-ms N] [--log-level L]`.
 * The `svc` command (cli/) is what users run: it loads the config and calls `runSvc` (run.ts). The library entry
 * is index.ts; docs/architecture.md describes the engine root file by file.
 */
import { setFlagsFromString } from 'node:v8';
import pino from 'pino';
import { onStopSignals } from '@svc/sdk/core';
import { startEngine, type EngineOptions } from './engine.js';

// As the `svc` command does (`withoutPretenuring`, @svc/config-kit/bundle): no allocation-site pretenuring, which
// otherwise could leave the engine allocating each call's objects in the old generation (docs/performance.md).
setFlagsFromString('--no-allocation-site-pretenuring');

const NUMERIC: Record<string, keyof EngineOptions> = {
  '--port': 'port',
  '--invocation-timeout-ms': 'invocationTimeoutMs',
  '--heartbeat-interval-ms': 'heartbeatIntervalMs',
  '--heartbeat-timeout-ms': 'heartbeatTimeoutMs',
  '--max-payload': 'maxPayload',
  '--max-buffered-bytes': 'maxBufferedBytes',
  '--handshake-timeout-ms': 'handshakeTimeoutMs',
};

function parseArgs(argv: string[]): { options: EngineOptions; logLevel: string } {
  const options: Record<string, unknown> = {};
  let logLevel = 'info';
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = argv[i + 1];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    i++;
    if (flag === '--host') options.host = value;
    else if (flag === '--log-level') logLevel = value;
    else if (NUMERIC[flag] !== undefined) {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0) throw new Error(`${flag} must be a non-negative integer, got "${value}"`);
      options[NUMERIC[flag]] = n;
    } else throw new Error(`unknown option ${flag}`);
  }
  return { options: options, logLevel };
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`svc engine: ${(err as Error).message}`);
    process.exit(2);
  }
  const logger = pino({ name: 'svc-engine', level: parsed.logLevel });
  const engine = await startEngine({ ...parsed.options, logger });
  logger.info({ url: engine.url, port: engine.port }, 'svc engine ready');
  // the first signal closes the engine; a later one (not the same Ctrl-C delivered again) exits at once
  onStopSignals({
    stop: () =>
      void engine.close().then(
        () => process.exit(0),
        () => process.exit(1),
      ),
    force: () => process.exit(1),
  });
}

main().catch((err: unknown) => {
  console.error('svc engine failed to start:', err);
  process.exit(1);
});
