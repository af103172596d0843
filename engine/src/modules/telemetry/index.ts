/**
 * `modules::telemetry::TelemetryModule`: an anonymous usage heartbeat, on by default (README.md, "Telemetry"). Off with
 * `enabled: false`, `SVC_TELEMETRY_DISABLED=1` or `DO_NOT_TRACK=1`. It never delays start-up: the first heartbeat goes
 * out `FIRST_BEAT_DELAY_MS` after start (or after one interval, if that is shorter), in the background, with a 3 s
 * timeout, and a failure (no network) is logged at debug level and forgotten. What it sends is exactly
 * `heartbeatBody` (README.md, "Telemetry").
 */
import { randomUUID } from 'node:crypto';
import { arch, platform } from 'node:os';
import type { TelemetryConfig } from '@svc/config';
import type { EngineInternals, EngineModule, ModuleContext } from '../module.js';

export const TELEMETRY_MODULE = 'modules::telemetry::TelemetryModule';
const SEND_TIMEOUT_MS = 3000;
/**
 * The first heartbeat waits this long: sent at once, its first `fetch` (loading Node's HTTP client and a TLS
 * context, ~80 ms of CPU) competed with the capability workers starting on the same cores, and it counted the
 * workers and functions of a stack that had not registered yet.
 */
const FIRST_BEAT_DELAY_MS = 10_000;

export interface TelemetryModuleOptions {
  /** The module classes of the config (names only), reported in the heartbeat. */
  modules: string[];
  /** The environment opted out (`SVC_TELEMETRY_DISABLED` / `DO_NOT_TRACK`). */
  optedOut: boolean;
}

/** Everything a heartbeat carries: no host name, no address, no function or worker names, no payloads. */
export function heartbeatBody(engine: EngineInternals, installId: string, modules: string[], sequence: number): object {
  const stats = engine.stats();
  return {
    event: 'heartbeat',
    install_id: installId,
    sequence,
    engine_version: engine.version,
    node_version: process.versions.node,
    os: platform(),
    arch: arch(),
    uptime_seconds: Math.round((Date.now() - engine.startedAtMs) / 1000),
    modules,
    workers: stats.workers,
    functions: stats.functions,
    triggers: stats.triggers,
  };
}

export function createTelemetryModule(config: TelemetryConfig, options: TelemetryModuleOptions): EngineModule {
  let timer: NodeJS.Timeout | undefined;
  return {
    name: TELEMETRY_MODULE,
    async start(ctx: ModuleContext): Promise<void> {
      if (!config.enabled || options.optedOut) {
        ctx.logger.debug({ optedOut: options.optedOut }, 'usage heartbeat off');
        return;
      }
      const installId = randomUUID(); // per run, never stored: nothing ties two runs together
      let sequence = 0;
      const beat = (): void =>
        void send(ctx, config, heartbeatBody(ctx.engine, installId, options.modules, sequence++));
      const intervalMs = config.heartbeat_interval_secs * 1000;
      timer = setTimeout(
        () => {
          beat();
          timer = setInterval(beat, intervalMs).unref();
        },
        Math.min(FIRST_BEAT_DELAY_MS, intervalMs),
      ).unref();
    },
    async close(): Promise<void> {
      if (timer !== undefined) clearTimeout(timer); // the first heartbeat's timeout or the interval
      timer = undefined;
    },
  };
}

async function send(ctx: ModuleContext, config: TelemetryConfig, body: object): Promise<void> {
  try {
    const res = await fetch(config.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    });
    await res.arrayBuffer();
  } catch (err) {
    ctx.logger.debug({ err: String(err) }, 'usage heartbeat not sent');
  }
}
