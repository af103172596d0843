/**
 * Config entry → what runs (DESIGN.md): a capability worker class becomes a supervised child process
 * (`node workers/<dir>/dist/main.js` with its resolved config in `SVC_MODULE_CONFIG`); an engine module class
 * becomes the module its factory builds. A class whose implementation is not part of this build is reported, not
 * silently dropped. Factories are imported only when the config names their class: an engine that does not use
 * pub/sub or HTTP functions does not pay for loading their clients (Redis, undici) at start-up.
 */
import {
  MODULE_CLASSES,
  workerForClass,
  type DeepReadonly,
  type ExecConfig,
  type HttpFunctionsConfig,
  type ModuleEntry,
} from '@svc/config';
import { createExecModule } from './exec/index.js';
import type { EngineModule } from './module.js';
import { findWorkerMain, workerMainCandidates } from './worker-path.js';

export interface ModuleFactoryOptions {
  /** SIGTERM → SIGKILL grace for supervised processes (`shutdown_grace_ms`). */
  graceMs: number;
  /** The config's `log_level`, handed to capability workers as `SVC_LOG_LEVEL`. */
  logLevel?: string;
}

export type PlannedModule =
  | { kind: 'engine'; class: string; module: EngineModule }
  | {
      kind: 'worker';
      class: string;
      /** The name the worker registers under (`svc-state`): how the engine sees that it is up. */
      workerName: string;
      /** The entry's `name:` if any, else `workerName`: how logs and the banner call it. */
      label: string;
      main: string;
      module: EngineModule;
    }
  | { kind: 'unavailable'; class: string; reason: string };

/** Copies the frozen resolved config into a plain mutable object (factories may validate it again). */
function plain<T>(value: DeepReadonly<T>): T {
  return structuredClone(value) as T;
}

export async function planModule(
  entry: DeepReadonly<ModuleEntry>,
  options: ModuleFactoryOptions,
): Promise<PlannedModule> {
  const worker = workerForClass(entry.class);
  if (worker) {
    const workerName = worker.name;
    const label = entry.name ?? worker.name;
    const main = findWorkerMain(worker.dir);
    if (!main) {
      return {
        kind: 'unavailable',
        class: entry.class,
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
        },
        graceMs: options.graceMs,
      },
    );
    return { kind: 'worker', class: entry.class, workerName, label, main, module };
  }
  switch (entry.class) {
    case MODULE_CLASSES.exec: {
      const config = plain<ExecConfig>(entry.config as DeepReadonly<ExecConfig>);
      return { kind: 'engine', class: entry.class, module: createExecModule(config, { graceMs: options.graceMs }) };
    }
    case MODULE_CLASSES.pubsub: {
      const { createPubSubModule } = await import('./pubsub/index.js');
      return { kind: 'engine', class: entry.class, module: createPubSubModule(plain(entry.config)) };
    }
    case MODULE_CLASSES.httpFunctions: {
      const { createHttpFunctionsModule } = await import('./http-functions/index.js');
      return {
        kind: 'engine',
        class: entry.class,
        module: createHttpFunctionsModule(
          plain<HttpFunctionsConfig>(entry.config as DeepReadonly<HttpFunctionsConfig>),
        ),
      };
    }
    default:
      return {
        kind: 'unavailable',
        class: entry.class,
        reason: 'not implemented in this build yet; the entry is validated and otherwise ignored',
      };
  }
}
