/**
 * What a module's context offers over the core: `ModuleHooks` (the hook interface) and `EngineInternals`
 * (read-only snapshots, built on demand and never on the invocation path, plus engine-internal calls).
 */
import type { EngineCore } from './core/engine-core.js';
import type { FunctionEntry } from './core/function-registry.js';
import type { Binding, TriggerType } from './core/trigger-registry.js';
import type { Worker } from './core/worker.js';
import type { PlainEndpoints } from './transport/plain-endpoints.js';
import type { SocketRoutes } from './transport/socket-routes.js';
import type {
  ComponentHealth,
  EngineInternals,
  FunctionView,
  ModuleHooks,
  PeerView,
  TriggerTypeView,
  TriggerView,
  WorkerView,
} from './modules/module.js';

export const ENGINE_VERSION = '0.1.0';

export function createInternals(
  core: EngineCore,
  startedAtMs: number,
  routes: SocketRoutes,
  endpoints: PlainEndpoints,
): EngineInternals {
  const health = new Map<string, () => Promise<ComponentHealth>>();
  let peers: PeerView | undefined;
  return {
    setTelemetrySink: (sink) => (endpoints.telemetrySink = sink),
    setHttpRoute: (path, route) =>
      route === undefined ? endpoints.http.delete(path) : endpoints.http.set(path, route),
    setHealthComponent: (name, probe) => (probe === undefined ? health.delete(name) : health.set(name, probe)),
    healthComponents: () => probeAll(health),
    version: ENGINE_VERSION,
    startedAtMs,
    addSocketRoute: (prefix, route) => routes.add(prefix, route),
    setWorkerMetadata: (workerId, metadata) => core.setWorkerMetadata(workerId, metadata),
    hasFunction: (functionId) =>
      core.functions.get(functionId) !== undefined || (peers !== undefined && peers.hasFunction(functionId)),
    localReplicas: (functionId) => core.functions.get(functionId)?.replicaCount ?? 0,
    setPeerView: (view) => (peers = view),
    peerView: () => peers,
    invocationsObserved: () => core.hooks.startObservers.length > 0 || core.hooks.settleObservers.length > 0,
    call: (functionId, data, options, onDone) => core.call(functionId, data, options, onDone),
    workerName: (id) => core.workers.get(id)?.name,
    listWorkers: () => [...core.workers.values()].map(workerView),
    getWorker: (id) => {
      const worker = core.workers.get(id);
      return worker === undefined ? undefined : workerView(worker);
    },
    listFunctions: () => [...core.functions.values()].map(functionView),
    getFunction: (id) => {
      const entry = core.functions.get(id);
      return entry === undefined ? undefined : functionView(entry);
    },
    listTriggerTypes: () => [...core.triggers.types.values()].map((t) => triggerTypeView(core, t)),
    listTriggers: () => [...core.triggers.bindings.values()].map((b) => triggerView(core, b)),
    listServices: () =>
      [...core.services.values()].map((s) => ({
        id: s.id,
        name: s.name,
        ...(s.description !== undefined ? { description: s.description } : {}),
        ...(s.parent_service_id !== undefined ? { parent_service_id: s.parent_service_id } : {}),
        workerId: s.worker.id,
        workerName: s.worker.name,
      })),
    stats: () => ({
      workers: core.workers.size,
      functions: core.functions.size,
      triggerTypes: core.triggers.types.size,
      triggers: core.triggers.bindings.size,
      invocationsInFlight: core.invocations.size,
    }),
  };
}

export function createModuleHooks(core: EngineCore): ModuleHooks {
  const hooks = core.hooks;
  return {
    addRegistrationInterceptor: (interceptor) => hooks.addInterceptor(interceptor),
    addDispatchMiddleware: (middleware) => hooks.addMiddleware(middleware),
    setActionHandler: (actionType, handler) => hooks.setActionHandler(actionType, handler),
    observe: (observer) => hooks.observe(observer),
  };
}

function workerView(worker: Worker): WorkerView {
  const m = worker.metadata;
  const view: WorkerView = {
    id: worker.id,
    name: worker.name,
    reported: m.pid !== undefined || m.runtime !== undefined,
    kind: worker.conn.kind,
    connectedAtMs: worker.connectedAtMs,
    functionIds: [...worker.functions, ...worker.claims.keys()],
    triggerTypeIds: [...worker.triggerTypes],
    triggerIds: [...worker.triggers],
    activeInvocations: activeInvocations(worker),
  };
  if (m.description !== undefined) view.description = m.description;
  if (m.runtime !== undefined) view.runtime = m.runtime;
  if (m.version !== undefined) view.version = m.version;
  if (m.os !== undefined) view.os = m.os;
  if (m.pid !== undefined) view.pid = m.pid;
  if (m.isolation !== undefined) view.isolation = m.isolation;
  if (m.telemetry !== undefined) view.telemetry = m.telemetry;
  if (worker.conn.remoteAddress !== undefined) view.ipAddress = worker.conn.remoteAddress;
  return view;
}

/** The invocations a worker executes or waits on, a call to itself counted once. */
function activeInvocations(worker: Worker): number {
  let selfCalls = 0;
  if (worker.executing.size > 0) for (const inv of worker.waiting) if (inv.executor === worker) selfCalls++;
  return worker.executing.size + worker.waiting.size - selfCalls;
}

function functionView(entry: FunctionEntry): FunctionView {
  const info = entry.primary;
  const replicas = entry.replicas;
  const view: FunctionView = {
    id: entry.id,
    workerIds: replicas.map((r) => r.worker.id),
    workerNames: replicas.map((r) => r.worker.name),
    inFlight: replicas.reduce((sum, r) => sum + r.inFlight, 0),
  };
  if (info.description !== undefined) view.description = info.description;
  // parsed from the kept JSON text only when read (announcements and listings that skip them never pay for it)
  if (info.requestFormatJson !== undefined) lazyField(view, 'request_format', () => info.requestFormat());
  if (info.responseFormatJson !== undefined) lazyField(view, 'response_format', () => info.responseFormat());
  if (info.metadata !== undefined) view.metadata = info.metadata;
  return view;
}

/** An own, enumerable property computed at its first read (copied by spreads and JSON like a plain value). */
function lazyField<T extends object>(target: T, key: keyof T & string, compute: () => unknown): void {
  Object.defineProperty(target, key, {
    configurable: true,
    enumerable: true,
    get() {
      const value = compute();
      Object.defineProperty(target, key, { value, configurable: true, enumerable: true, writable: true });
      return value;
    },
    set(value: unknown) {
      Object.defineProperty(target, key, { value, configurable: true, enumerable: true, writable: true });
    },
  });
}

function triggerTypeView(core: EngineCore, type: TriggerType): TriggerTypeView {
  const providers = [...type.providers];
  const view: TriggerTypeView = {
    id: type.id,
    providerIds: providers.map((p) => p.id),
    providerNames: providers.map((p) => p.name),
    bindingCount: core.triggers.bindingsOf(type.id).size,
  };
  if (type.info.description !== undefined) view.description = type.info.description;
  if (type.info.trigger_request_format !== undefined) view.trigger_request_format = type.info.trigger_request_format;
  if (type.info.call_request_format !== undefined) view.call_request_format = type.info.call_request_format;
  return view;
}

function triggerView(core: EngineCore, binding: Binding): TriggerView {
  const hasProvider = (core.triggers.providersOf(binding.triggerType)?.size ?? 0) > 0;
  const view: TriggerView = {
    id: binding.id,
    trigger_type: binding.triggerType,
    function_id: binding.functionId,
    config: binding.config,
    ownerId: binding.owner.id,
    ownerName: binding.owner.name,
    status: !hasProvider ? 'pending' : binding.lastError !== undefined ? 'failed' : 'active',
  };
  if (binding.metadata !== undefined) view.metadata = binding.metadata;
  if (binding.lastError !== undefined) view.error = binding.lastError;
  return view;
}

const PROBE_TIMEOUT_MS = 1000;

async function probeAll(probes: Map<string, () => Promise<ComponentHealth>>): Promise<Record<string, ComponentHealth>> {
  const entries = await Promise.all(
    [...probes].map(async ([name, probe]): Promise<[string, ComponentHealth]> => [name, await probeOne(probe)]),
  );
  return Object.fromEntries(entries);
}

async function probeOne(probe: () => Promise<ComponentHealth>): Promise<ComponentHealth> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<ComponentHealth>((resolve) => {
    timer = setTimeout(() => resolve({ status: 'unhealthy', details: 'no answer within 1 s' }), PROBE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      probe().catch((err: unknown) => ({ status: 'unhealthy' as const, details: String(err) })),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
