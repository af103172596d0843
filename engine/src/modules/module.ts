/**
 * An engine module lives beside the core, never inside it: it reaches the core only as a worker would, through
 * an SDK client connected in-process (`ctx.connect(name)`), plus a read-only view of the registry for introspection
 * and a few documented hooks (`ctx.engine`). Removing a module never breaks the core.
 *
 * Lifecycle: `start()` once; `close()` is idempotent and releases everything the module owns (timers, sockets,
 * child processes).
 */
import type { Logger } from 'pino';
import type { ErrorBody, SvcClient } from '@svc/sdk';
import type {
  HttpFunctionHandle,
  HttpFunctionRegistrar,
  HttpFunctionRegistration,
} from '../core/http-function-hook.js';

export interface ModuleContext {
  /**
   * A fresh SDK client connected to the core in-process (no socket, no JSON), shown as a worker named
   * `workerName` (`runtime: "engine"`, `isolation: "in-process"`). Resolves once the engine has registered it.
   * The engine closes it when it stops; a module may `shutdown()` it earlier.
   */
  connect(workerName: string): Promise<SvcClient>;
  logger: Logger;
  /** The engine's own WebSocket address, for modules that spawn workers (`SVC_URL`). */
  engineUrl: string;
  /** Engine internals a module may need; each member documents what it exposes. */
  engine: EngineInternals;
}

/** Filled in by the engine (engine/src/engine.ts); kept as an interface so modules do not import the core. */
export interface EngineInternals {
  [key: string]: unknown;
  /** The engine's version (`engine::health::check`, `engine::workers::list`). */
  readonly version: string;
  /** When the engine started, ms since the epoch. */
  readonly startedAtMs: number;
  /**
   * Installs the handler for `registerfunction` frames that carry an HTTP `invocation` config (the HTTP-functions
   * module). Without one, such a registration is refused: logged, and the worker gets an `error` frame with code
   * `http_functions_unavailable`. Pass `undefined` to uninstall (on module close).
   */
  setHttpFunctionRegistrar(registrar: HttpFunctionRegistrar | undefined): void;
  /**
   * Calls `listener` synchronously on every topology change (worker connected / disconnected / metadata
   * updated, functions changed, trigger registrations changed). Keep it cheap; coalesce bursts yourself.
   * Returns the unsubscribe function.
   */
  onTopologyChange(listener: (event: TopologyEvent) => void): () => void;
  /** Stores the metadata a worker reported through `engine::workers::register` (sanitised). False if unknown. */
  setWorkerMetadata(workerId: string, metadata: unknown): boolean;
  /** Snapshots (built on demand, never on the invocation path). */
  listWorkers(): WorkerView[];
  getWorker(workerId: string): WorkerView | undefined;
  listFunctions(): FunctionView[];
  getFunction(functionId: string): FunctionView | undefined;
  listTriggerTypes(): TriggerTypeView[];
  listTriggers(): TriggerView[];
  /** Counters for health checks. */
  stats(): EngineStats;
}

export type TopologyEvent =
  | { kind: 'worker'; event: 'worker_connected' | 'worker_disconnected' | 'worker_metadata_updated'; workerId: string }
  | { kind: 'functions' }
  | { kind: 'triggers' };

// The registrar contract is defined once, beside the core's hook that calls it (a type-only import: no runtime link).
export type { HttpFunctionHandle, HttpFunctionRegistrar, HttpFunctionRegistration };

export interface WorkerView {
  id: string;
  /** Reported name, else the module name (in-process), else the id. */
  name: string;
  description?: string;
  runtime?: string;
  version?: string;
  os?: string;
  pid?: number;
  isolation?: string | null;
  telemetry?: unknown;
  /** True once `engine::workers::register` arrived. */
  reported: boolean;
  kind: 'ws' | 'in-process';
  ipAddress?: string;
  connectedAtMs: number;
  functionIds: string[];
  triggerTypeIds: string[];
  triggerIds: string[];
  /** Invocations it started or executes right now. */
  activeInvocations: number;
}

export interface FunctionView {
  id: string;
  description?: string;
  request_format?: unknown;
  response_format?: unknown;
  metadata?: unknown;
  /** One entry per replica. */
  workerIds: string[];
  workerNames: string[];
  inFlight: number;
}

export interface TriggerTypeView {
  id: string;
  description?: string;
  trigger_request_format?: unknown;
  call_request_format?: unknown;
  providerIds: string[];
  providerNames: string[];
  bindingCount: number;
}

export interface TriggerView {
  id: string;
  trigger_type: string;
  function_id: string;
  config: unknown;
  metadata?: unknown;
  ownerId: string;
  ownerName: string;
  /** `pending`: no provider for its type; `failed`: a provider refused it (see `error`). */
  status: 'active' | 'pending' | 'failed';
  error?: ErrorBody;
}

export interface EngineStats {
  workers: number;
  functions: number;
  triggerTypes: number;
  triggers: number;
  invocationsInFlight: number;
}

export interface EngineModule {
  /** The config class, e.g. `modules::pubsub::PubSubModule`. */
  readonly name: string;
  start(ctx: ModuleContext): Promise<void>;
  close(): Promise<void>;
}
