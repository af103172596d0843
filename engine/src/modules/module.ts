/**
 * An engine module lives beside the core, never inside it: it reaches the core only as a worker would, through
 * an SDK client connected in-process (`ctx.connect(name)`), plus the hook interface (`ctx.hooks`, docs/hooks.md)
 * and a read-only view of the registry (`ctx.engine`). Removing a module never breaks the core.
 *
 * Lifecycle: `start()` once; `close()` is idempotent and releases everything the module owns (timers, sockets,
 * child processes).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { ErrorBody, SvcClient } from '@svc/sdk';
import type {
  ActionHandler,
  CallOptions,
  DispatchMiddleware,
  InvocationOutcome,
  LifecycleObserver,
  RegistrationInterceptor,
  WorkerMetadata,
} from '../core/index.js';
import type { SocketRoute } from '../transport/socket-routes.js';

// The hook contracts are defined once, beside the core that calls them (type-only: no runtime link).
export type {
  ActionHandler,
  CallOptions,
  CallRequest,
  Claim,
  DispatchMiddleware,
  DispatchVerdict,
  InvocationOutcome,
  CallCancelled,
  InvocationSettled,
  InvocationStarted,
  LifecycleObserver,
  Registration,
  RegistrationInterceptor,
  RegistrationVerdict,
  TopologyEvent,
  WorkerMetadata,
} from '../core/index.js';

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
  /** The hook interface (docs/hooks.md). Each installer returns its uninstaller; call it on `close()`. */
  hooks: ModuleHooks;
  /** Engine internals a module may need; each member documents what it exposes. */
  engine: EngineInternals;
}

/** How a module plugs into the core (docs/hooks.md has each hook's contract, ordering and cost). */
export interface ModuleHooks {
  /** Sees every `registerfunction` / `registertrigger` / `registertriggertype`; may refuse, or claim a function. */
  addRegistrationInterceptor(interceptor: RegistrationInterceptor): () => void;
  /** Runs before every call is routed; may answer or refuse it, or pass it on. */
  addDispatchMiddleware(middleware: DispatchMiddleware): () => void;
  /** What a call with `action: {type: actionType}` does. One handler per type; a second one throws. */
  setActionHandler(actionType: string, handler: ActionHandler): () => void;
  /** Topology changes and invocation start / settle. */
  observe(observer: LifecycleObserver): () => void;
}

/** Filled in by the engine (engine/src/engine.ts); kept as an interface so modules do not import the core. */
export interface EngineInternals {
  [key: string]: unknown;
  /** The engine's version (`engine::health::check`, `engine::workers::list`). */
  readonly version: string;
  /** When the engine started, ms since the epoch. */
  readonly startedAtMs: number;
  /**
   * Serves WebSocket upgrades for every path under `prefix` on the engine's ports (the data channels'
   * `/ws/channels/`). Returns the removal function (call it on module close).
   */
  addSocketRoute(prefix: string, route: SocketRoute): () => void;
  /** Stores the metadata a worker reported through `engine::workers::register` (sanitise it first). */
  setWorkerMetadata(workerId: string, metadata: WorkerMetadata): boolean;
  /**
   * True when at least one live worker (or module) provides `functionId`: on this engine, or on another engine
   * of its cluster (see `setPeerView`).
   */
  hasFunction(functionId: string): boolean;
  /** How many replicas of `functionId` this engine itself routes to (0: none). O(1). */
  localReplicas(functionId: string): number;
  /**
   * What the other engines of a cluster provide, installed by the cluster module (undefined: no cluster). The
   * `engine::*` listings and `hasFunction` include it.
   */
  setPeerView(view: PeerView | undefined): void;
  peerView(): PeerView | undefined;
  /** True while a lifecycle observer wants each invocation's start or settle (tracing, metrics). O(1). */
  invocationsObserved(): boolean;
  /** Calls a function as the engine itself (through the dispatch middleware); `onDone` gets one outcome. */
  call(functionId: string, data: unknown, options: CallOptions, onDone: (outcome: InvocationOutcome) => void): void;
  /** The name a connected worker goes by now (no snapshot: cheap enough for the invocation path). */
  workerName(workerId: string): string | undefined;
  /** Snapshots (built on demand, never on the invocation path). */
  listWorkers(): WorkerView[];
  getWorker(workerId: string): WorkerView | undefined;
  listFunctions(): FunctionView[];
  getFunction(functionId: string): FunctionView | undefined;
  listTriggerTypes(): TriggerTypeView[];
  listTriggers(): TriggerView[];
  /** Services declared with `registerservice`. */
  listServices(): ServiceView[];
  /** Counters for health checks. */
  stats(): EngineStats;
  /** Where binary telemetry frames from workers (`/otel`, or `/`) go; `undefined` drains them. */
  setTelemetrySink(sink: ((frame: Buffer) => void) | undefined): void;
  /** A plain-HTTP GET route on the engine port (`/metrics`); `undefined` removes it. */
  setHttpRoute(path: string, route: ((req: IncomingMessage, res: ServerResponse) => void) | undefined): void;
  /** A component of `engine::health::check`; `undefined` removes it. */
  setHealthComponent(name: string, probe: (() => Promise<ComponentHealth>) | undefined): void;
  /** Every registered component's health (probes that fail or take over a second report `unhealthy`). */
  healthComponents(): Promise<Record<string, ComponentHealth>>;
}

export interface ComponentHealth {
  status: 'healthy' | 'degraded' | 'unhealthy' | 'disabled';
  details?: unknown;
}

/** Functions and workers of the other engines of a cluster, as this engine last heard of them. */
export interface PeerView {
  /** This engine's id in the cluster. */
  readonly engineId: string;
  hasFunction(functionId: string): boolean;
  functions(): PeerFunctionView[];
  workers(): PeerWorkerView[];
}

export interface PeerFunctionView {
  id: string;
  description?: string;
  metadata?: unknown;
  workerName: string;
  /** Replicas across the other engines. */
  replicas: number;
  engineIds: string[];
}

/** A worker connected to another engine of the cluster. */
export interface PeerWorkerView {
  engineId: string;
  id: string;
  name: string;
  description?: string;
  runtime?: string;
  version?: string;
  os?: string;
  pid?: number;
  isolation?: string | null;
  ipAddress?: string;
  connectedAtMs: number;
  functionCount: number;
  activeInvocations: number;
}

export type { PeerSocket, SocketRequest, SocketRoute, SocketRouteAnswer } from '../transport/socket-routes.js';

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

export interface ServiceView {
  id: string;
  name: string;
  description?: string;
  parent_service_id?: string;
  workerId: string;
  workerName: string;
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
