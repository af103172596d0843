/**
 * An engine module lives beside the core, never inside it: it reaches the core only as a worker would, through
 * an SDK client connected in-process (`ctx.client`), plus a read-only view of the registry for introspection.
 * Removing a module never breaks the core.
 *
 * Lifecycle: `start()` once; `close()` is idempotent and releases everything the module owns (timers, sockets,
 * child processes).
 */
import type { Logger } from 'pino';
import type { SvcClient } from '@svc/sdk';

export interface ModuleContext {
  /** A fresh SDK client connected to the core in-process, shown as a worker named after the module. */
  connect(workerName: string): Promise<SvcClient>;
  logger: Logger;
  /** The engine's own WebSocket address, for modules that spawn workers (`SVC_URL`). */
  engineUrl: string;
  /** Engine internals a module may need; each helper documents what it exposes. */
  engine: EngineInternals;
}

/** Filled in by the engine (engine/src/engine.ts); kept as an interface so modules do not import the core. */
export interface EngineInternals {
  [key: string]: unknown;
}

export interface EngineModule {
  /** The config class, e.g. `modules::pubsub::PubSubModule`. */
  readonly name: string;
  start(ctx: ModuleContext): Promise<void>;
  close(): Promise<void>;
}
