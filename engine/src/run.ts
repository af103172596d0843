/**
 * `runSvc(config)`: the resolved config → a running engine. Engine options come from the top-level keys, one
 * module per config entry (`modules/index.ts`), capability workers run as supervised children. `waitForWorkers`
 * resolves once every spawned capability worker is ready (it logged `"svc_ready": true` and its connection is
 * registered), or failed for good, or the timeout passed; it wakes on topology events, process state changes and
 * readiness reports, never by polling.
 *
 * The engine root, file by file: `main.ts` the bare-engine executable (tests, benchmarks), `index.ts` the library
 * entry, `engine.ts` core + transport + modules with one lifecycle (`startEngine`), `run.ts` config → engine
 * (used by the `svc` command), `internals.ts` what a module's context offers over the core.
 */
import type { Logger } from 'pino';
import {
  MODULE_CLASSES,
  type ClusterConfig,
  type DeepReadonly,
  type ObservabilityConfig,
  type SvcConfig,
} from '@svc/config';
import { workerTelemetryEnv } from './modules/observability/settings.js';
import { startEngine, type EngineOptions, type RunningEngine } from './engine.js';
import { sendJson } from './http-json.js';
import type { ExecModule } from './modules/exec/index.js';
import { planModule, type PlannedModule } from './modules/index.js';
import type { EngineModule } from './modules/module.js';

export { openListenerWarnings, type ListenerInfo } from './listeners.js';

/** How long start-up waits for the capability workers to be ready (a loaded machine is slow). */
const DEFAULT_WORKER_READY_TIMEOUT_MS = 30_000;

export interface RunOptions {
  logger: Logger;
  /** How long to wait for spawned capability workers to be ready; default 30000 ms (a loaded machine is slow). */
  workerReadyTimeoutMs?: number;
  /** Modules added before the configured ones (e.g. introspection). */
  builtinModules?: EngineModule[];
  /** The data directory of file-based stores (never a reason for a watched process to restart). */
  dataDir?: string;
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
  /** Engine modules started (class names; an exec entry as `name (class)`). */
  modules: string[];
  /** The capability workers' current status (spawned, registered, failed, or not built). */
  workers(): WorkerStatus[];
  /** Resolves once every spawned capability worker is ready (or failed, or `timeoutMs` passed). */
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
    maxConnections: config.max_connections,
    invocationTimeoutMs: config.invocation_timeout_ms,
    registrationLimits: {
      maxBytes: config.max_registration_bytes,
      maxPerWorker: config.max_registrations_per_worker,
    },
    maxInFlightPerWorker: config.max_in_flight_per_worker,
    maxInFlight: config.max_in_flight,
    maxInFlightPerCaller: config.max_in_flight_per_caller,
    heartbeatIntervalMs: config.heartbeat_interval_ms,
    heartbeatTimeoutMs: config.heartbeat_timeout_ms,
    ...accessOptions(config),
    configurationDirectory: config.configuration.directory,
    configurationLimits: {
      maxEntryBytes: config.configuration.max_entry_bytes,
      maxTotalBytes: config.configuration.max_total_bytes,
    },
  };
}

/** The worker manager's access rules and extra listeners (docs/rbac.md), as mutable copies for the engine. */
function accessOptions(
  config: DeepReadonly<SvcConfig>,
): Pick<EngineOptions, 'middlewareFunctionId' | 'rbac' | 'listeners'> {
  const copy = structuredClone({ rbac: config.rbac, listeners: config.listeners }) as Pick<
    SvcConfig,
    'rbac' | 'listeners'
  >;
  return {
    middlewareFunctionId: config.middleware_function_id,
    rbac: copy.rbac,
    listeners: copy.listeners.map((l) => ({
      name: l.name,
      port: l.port,
      host: l.host,
      middlewareFunctionId: l.middleware_function_id,
      rbac: l.rbac,
    })),
  };
}

export async function runSvc(config: DeepReadonly<SvcConfig>, options: RunOptions): Promise<RunningSvc> {
  const { logger } = options;
  const telemetryEnv = observabilityEnv(config);
  const moduleClasses = config.modules.map((m) => m.class);
  const changed = new Set<() => void>();
  const notify = (): void => {
    for (const listener of [...changed]) listener();
  };
  const plans = await Promise.all(
    config.modules.map((entry, i) =>
      planModule(entry, {
        graceMs: config.shutdown_grace_ms,
        logLevel: config.log_level,
        onProcessState: notify,
        telemetryEnv,
        moduleClasses,
        ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
      }).catch((err: unknown) => {
        throw new Error(`modules[${i}] (${entry.class}): ${(err as Error).message}`, { cause: err });
      }),
    ),
  );
  refuseUnavailable(plans);
  const modules = [
    ...(options.builtinModules ?? []),
    // a worker's engine-side companion starts first, so it sees the worker arrive
    ...plans.flatMap((p) =>
      p.kind === 'unavailable' ? [] : p.kind === 'worker' && p.companion ? [p.companion, p.module] : [p.module],
    ),
  ];
  if (config.cluster !== undefined) {
    // last: its routing middleware sees calls after every other module's policy
    const { createClusterModule } = await import('./modules/cluster/index.js');
    modules.push(createClusterModule(structuredClone(config.cluster) as ClusterConfig));
  }
  const engine = await startEngine({ ...engineOptions(config), modules, logger });
  engine.internals.setHttpRoute('/ready', (_req, res) => {
    const workers = workerStatuses(engine, plans);
    const ready = workers.every((w) => w.state === 'ready');
    sendJson(res, ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', workers });
  });
  engine.core.hooks.observe({ topology: (event) => event.kind === 'worker' && notify() });
  let closed = false;
  return {
    engine,
    modules: plans.flatMap((p) => (p.kind === 'engine' ? [p.label ? `${p.label} (${p.class})` : p.class] : [])),
    workers: () => workerStatuses(engine, plans),
    waitForWorkers: (timeoutMs = options.workerReadyTimeoutMs ?? DEFAULT_WORKER_READY_TIMEOUT_MS) =>
      new Promise<WorkerStatus[]>((resolve) => {
        const settled = (): boolean => closed || workerStatuses(engine, plans).every((w) => w.state !== 'starting');
        const finish = (): void => {
          clearTimeout(timer);
          changed.delete(check);
          resolve(workerStatuses(engine, plans));
        };
        const check = (): void => {
          if (settled()) finish();
        };
        const timer = setTimeout(finish, timeoutMs);
        changed.add(check);
        check();
      }),
    close: async () => {
      closed = true;
      notify();
      // Supervised processes stop in parallel (each gets the full grace period), then the engine and its modules.
      await Promise.all(plans.map((p) => (p.kind === 'worker' ? p.module.close() : Promise.resolve())));
      await engine.close();
    },
  };
}

/** The `SVC_OTEL*` environment of spawned workers, from the config's observability entry (if on). */
function observabilityEnv(config: DeepReadonly<SvcConfig>): Record<string, string> | undefined {
  const entry = config.modules.find((m) => m.class === MODULE_CLASSES.observability);
  if (entry === undefined) return undefined;
  return workerTelemetryEnv(structuredClone(entry.config) as ObservabilityConfig);
}

/** A config entry that would not run stops start-up, naming each such entry and why. */
function refuseUnavailable(plans: PlannedModule[]): void {
  const refused = plans.flatMap((p, i) =>
    p.kind === 'unavailable' ? [`modules[${i}] (${p.class}): ${p.reason}`] : [],
  );
  if (refused.length > 0) throw new Error(`config entries that cannot run: ${refused.join('; ')}`);
}

function workerStatuses(engine: RunningEngine, plans: PlannedModule[]): WorkerStatus[] {
  const connected = (name: string): boolean => engine.internals.listWorkers().some((w) => w.name === name);
  const exec = (p: Extract<PlannedModule, { kind: 'worker' }>): ExecModule => p.module as ExecModule;
  const statuses: WorkerStatus[] = [];
  for (const plan of plans) {
    if (plan.kind === 'unavailable' && plan.cause === 'not_built') {
      statuses.push({ name: plan.class, class: plan.class, state: 'unavailable', reason: plan.reason });
    }
    if (plan.kind !== 'worker') continue;
    const module = exec(plan);
    // Ready: it said so (`svc_ready`, once its start-up finished) and its connection is up.
    const up = module.ready && connected(plan.workerName);
    const state = module.state === 'failed' ? 'failed' : up ? 'ready' : 'starting';
    const status: WorkerStatus = { name: plan.label, class: plan.class, state };
    if (module.pid !== undefined) status.pid = module.pid;
    if (state === 'failed' && module.failureReason !== undefined) status.reason = module.failureReason;
    statuses.push(status);
  }
  return statuses;
}
