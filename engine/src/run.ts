/**
 * The resolved config → a running engine: engine options from the top-level keys, one module per config entry
 * (`modules/index.ts`), capability workers as supervised children. Resolves once the engine accepts workers and
 * every spawned capability worker has registered (or `workerReadyTimeoutMs` passed; the banner then says so).
 */
import type { Logger } from 'pino';
import type { DeepReadonly, SvcConfig } from '@svc/config';
import { startEngine, type EngineOptions, type RunningEngine } from './engine.js';
import type { ExecModule } from './modules/exec/index.js';
import { planModule, type PlannedModule } from './modules/index.js';
import type { EngineModule } from './modules/module.js';

export interface RunOptions {
  logger: Logger;
  /** How long to wait for spawned capability workers to connect; default 10000 ms. */
  workerReadyTimeoutMs?: number;
  /** Modules added before the configured ones (e.g. introspection). */
  builtinModules?: EngineModule[];
}

export interface WorkerStatus {
  name: string;
  class: string;
  state: 'ready' | 'starting' | 'unavailable' | 'failed';
  pid?: number;
  reason?: string;
}

export interface RunningSvc {
  engine: RunningEngine;
  /** Engine modules started (class names). */
  modules: string[];
  /** Config entries that were accepted but do not run in this build, and why. */
  skipped: { class: string; reason: string }[];
  /** The capability workers' current status (spawned, registered, failed, or not built). */
  workers(): WorkerStatus[];
  /** Resolves once every spawned capability worker has registered with the engine (or failed, or `timeoutMs`). */
  waitForWorkers(timeoutMs?: number): Promise<WorkerStatus[]>;
  close(): Promise<void>;
}

export function engineOptions(config: DeepReadonly<SvcConfig>): Omit<EngineOptions, 'modules' | 'logger'> {
  return {
    port: config.port,
    host: config.host,
    handshakeTimeoutMs: config.handshake_timeout_ms,
    maxPayload: config.max_payload_bytes,
    maxBufferedBytes: config.max_buffered_bytes,
    invocationTimeoutMs: config.invocation_timeout_ms,
    heartbeatIntervalMs: config.heartbeat_interval_ms,
    heartbeatTimeoutMs: config.heartbeat_timeout_ms,
  };
}

export async function runSvc(config: DeepReadonly<SvcConfig>, options: RunOptions): Promise<RunningSvc> {
  const { logger } = options;
  const plans = await Promise.all(
    config.modules.map((entry) => planModule(entry, { graceMs: config.shutdown_grace_ms, logLevel: config.log_level })),
  );
  for (const plan of plans) {
    if (plan.kind === 'unavailable') logger.warn({ class: plan.class }, `skipping ${plan.class}: ${plan.reason}`);
  }
  const modules = [
    ...(options.builtinModules ?? []),
    ...plans.flatMap((p) => (p.kind === 'unavailable' ? [] : [p.module])),
  ];
  const engine = await startEngine({ ...engineOptions(config), modules, logger });
  let closed = false;
  return {
    engine,
    modules: plans.filter((p) => p.kind === 'engine').map((p) => p.class),
    skipped: plans.flatMap((p) => (p.kind === 'unavailable' ? [{ class: p.class, reason: p.reason }] : [])),
    workers: () => workerStatuses(engine, plans),
    waitForWorkers: async (timeoutMs = options.workerReadyTimeoutMs ?? 10_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!closed && Date.now() < deadline) {
        if (workerStatuses(engine, plans).every((w) => w.state !== 'starting')) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      return workerStatuses(engine, plans);
    },
    close: async () => {
      closed = true;
      // Supervised processes stop in parallel (each gets the full grace period), then the engine and its modules.
      await Promise.all(plans.map((p) => (p.kind === 'worker' ? p.module.close() : undefined)));
      await engine.close();
    },
  };
}

function workerStatuses(engine: RunningEngine, plans: PlannedModule[]): WorkerStatus[] {
  const connected = (name: string): boolean => engine.internals.listWorkers().some((w) => w.name === name);
  const exec = (p: Extract<PlannedModule, { kind: 'worker' }>): ExecModule => p.module as ExecModule;
  const statuses: WorkerStatus[] = [];
  for (const plan of plans) {
    if (plan.kind === 'unavailable' && plan.reason.includes('not built')) {
      statuses.push({ name: plan.class, class: plan.class, state: 'unavailable', reason: plan.reason });
    }
    if (plan.kind !== 'worker') continue;
    const module = exec(plan);
    const state = connected(plan.workerName) ? 'ready' : module.state === 'failed' ? 'failed' : 'starting';
    const status: WorkerStatus = { name: plan.label, class: plan.class, state };
    if (module.pid !== undefined) status.pid = module.pid;
    statuses.push(status);
  }
  return statuses;
}
