/**
 * Config entry → what runs (docs/config.md says which class is which): a capability worker class becomes a supervised
 * child process (`node workers/<dir>/dist/main.js` with its resolved config in `SVC_MODULE_CONFIG`); an engine module
 * class becomes the module its factory builds. A class whose implementation is not part of this build is reported, not
 * silently dropped. Factories are imported only when the config names their class: an engine that does not use pub/sub
 * or HTTP functions does not pay for loading their clients (Redis, undici) at start-up.
 */
import {
  MODULE_CLASSES,
  OBSERVABILITY_WORKER,
  workerForClass,
  type DeepReadonly,
  type ModuleEntry,
  type ObservabilityConfig,
  type TelemetryConfig,
  telemetryOptedOut,
} from '@svc/config';
import { createExecModule } from './exec/index.js';
import type { EngineModule } from './module.js';
import { findWorkerMain, workerMainCandidates } from './worker-path.js';

export interface ModuleFactoryOptions {
  /** SIGTERM → SIGKILL grace for supervised processes (`shutdown_grace_ms`). */
  graceMs: number;
  /** The config's `log_level`, handed to capability workers as `SVC_LOG_LEVEL`. */
  logLevel?: string;
  /** Telemetry settings for spawned capability workers (`SVC_OTEL*`), when observability is on. */
  telemetryEnv?: Record<string, string>;
  /** Every module class of the config (the usage heartbeat reports them). */
  moduleClasses?: string[];
  /** The data directory (file-based stores): never a reason to restart a watched process. */
  dataDir?: string;
  /**
   * Called whenever a capability worker's process changes state (spawned, crashed, failed for good) or reports
   * itself ready (`"svc_ready": true`).
   */
  onProcessState?: () => void;
}

/** Why a config entry does not run: its worker is not built, or this build has no module of its class. */
export type UnavailableCause = 'not_built' | 'unknown_class';

export type PlannedModule =
  | { kind: 'engine'; class: string; module: EngineModule; label?: string }
  | {
      kind: 'worker';
      class: string;
      /** The name the worker registers under (`svc-state`): how the engine sees that it is up. */
      workerName: string;
      /** The entry's `name:` if any, else `workerName`: how logs and the banner call it. */
      label: string;
      main: string;
      module: EngineModule;
      /** An engine-side module that goes with the worker (observability: spans, metrics, the `/otel` hand-off). */
      companion?: EngineModule;
    }
  | { kind: 'unavailable'; class: string; cause: UnavailableCause; reason: string };

export async function planModule(
  entry: DeepReadonly<ModuleEntry>,
  options: ModuleFactoryOptions,
): Promise<PlannedModule> {
  const worker: { dir: string; name: string; class: string } | undefined =
    workerForClass(entry.class) ?? (entry.class === OBSERVABILITY_WORKER.class ? OBSERVABILITY_WORKER : undefined);
  if (worker?.class === MODULE_CLASSES.observability && !(entry.config as { enabled?: boolean }).enabled) {
    // observability is off: nothing is spawned; engine::health::check reports its components as disabled
    return { kind: 'engine', class: entry.class, module: await observabilityModule(entry) };
  }
  if (worker) {
    const workerName = worker.name;
    const label = entry.name ?? worker.name;
    const main = findWorkerMain(worker.dir);
    if (!main) {
      return {
        kind: 'unavailable',
        class: entry.class,
        cause: 'not_built',
        reason: `${label} is not built (looked for ${workerMainCandidates(worker.dir)[0]}); run npm run build`,
      };
    }
    const module = createExecModule(
      { exec: [process.execPath, main] },
      {
        name: label,
        env: {
          SVC_MODULE_CONFIG: JSON.stringify(entry.config),
          ...(options.logLevel !== undefined ? { SVC_LOG_LEVEL: options.logLevel } : {}),
          ...options.telemetryEnv,
        },
        graceMs: options.graceMs,
        reportsReady: true,
        ...(options.onProcessState !== undefined
          ? { onState: options.onProcessState, onReady: options.onProcessState }
          : {}),
      },
    );
    const companion = worker.class === MODULE_CLASSES.observability ? await observabilityModule(entry) : undefined;
    return { kind: 'worker', class: entry.class, workerName, label, main, module, ...(companion ? { companion } : {}) };
  }
  switch (entry.class) {
    case MODULE_CLASSES.exec: {
      const module = createExecModule(entry.config, {
        graceMs: options.graceMs,
        ...(entry.name !== undefined ? { name: entry.name } : {}),
        ...(options.dataDir !== undefined ? { ignoreDirs: [options.dataDir] } : {}),
      });
      return { kind: 'engine', class: entry.class, label: module.processName, module };
    }
    case MODULE_CLASSES.pubsub: {
      const { createPubSubModule } = await import('./pubsub/index.js');
      return { kind: 'engine', class: entry.class, module: await createPubSubModule(entry.config) };
    }
    case MODULE_CLASSES.httpFunctions: {
      const { createHttpFunctionsModule } = await import('./http-functions/index.js');
      return { kind: 'engine', class: entry.class, module: createHttpFunctionsModule(entry.config) };
    }
    case MODULE_CLASSES.bridgeClient: {
      const { createBridgeClientModule } = await import('./bridge-client/index.js');
      return { kind: 'engine', class: entry.class, module: createBridgeClientModule(entry.config) };
    }
    case MODULE_CLASSES.telemetry: {
      const { createTelemetryModule } = await import('./telemetry/index.js');
      // validated by the config kit; a mutable copy for the module
      const config = structuredClone(entry.config) as TelemetryConfig;
      const module = createTelemetryModule(config, {
        modules: options.moduleClasses ?? [],
        optedOut: telemetryOptedOut(),
      });
      return { kind: 'engine', class: entry.class, module };
    }
    default:
      return {
        kind: 'unavailable',
        class: entry.class,
        cause: 'unknown_class',
        reason: 'this build has no module of this class; remove the entry to start',
      };
  }
}

async function observabilityModule(entry: DeepReadonly<ModuleEntry>): Promise<EngineModule> {
  const { createObservabilityModule } = await import('./observability/index.js');
  // validated by the config kit; a mutable copy for the module
  return createObservabilityModule(structuredClone(entry.config) as ObservabilityConfig);
}
