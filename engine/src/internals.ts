/**
 * `EngineInternals` over the core: read-only snapshots for introspection, and the hooks modules install.
 * Snapshots are built on demand and never touch the invocation path.
 */
import type { EngineCore } from './core/engine-core.js';
import type { FunctionEntry } from './core/function-registry.js';
import type { Binding, TriggerType } from './core/trigger-registry.js';
import type { Worker } from './core/worker.js';
import type { EngineInternals, FunctionView, TriggerTypeView, TriggerView, WorkerView } from './modules/module.js';

export const ENGINE_VERSION = '0.1.0';

export function createInternals(core: EngineCore, startedAtMs: number): EngineInternals {
  return {
    version: ENGINE_VERSION,
    startedAtMs,
    setHttpFunctionRegistrar: (registrar) => core.httpFunctions.setRegistrar(registrar),
    onTopologyChange: (listener) => core.topology.on(listener),
    setWorkerMetadata: (workerId, metadata) => core.setWorkerMetadata(workerId, metadata),
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
    stats: () => ({
      workers: core.workers.size,
      functions: core.functions.size,
      triggerTypes: core.triggers.types.size,
      triggers: core.triggers.bindings.size,
      invocationsInFlight: core.invocations.size,
    }),
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
    functionIds: [...worker.functions, ...worker.httpFunctions.keys()],
    triggerTypeIds: [...worker.triggerTypes],
    triggerIds: [...worker.triggers],
    activeInvocations: worker.invocations.size,
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

function functionView(entry: FunctionEntry): FunctionView {
  const info = entry.primary?.info ?? {};
  const view: FunctionView = {
    id: entry.id,
    workerIds: entry.replicas.map((r) => r.worker.id),
    workerNames: entry.replicas.map((r) => r.worker.name),
    inFlight: entry.replicas.reduce((sum, r) => sum + r.inFlight, 0),
  };
  if (info.description !== undefined) view.description = info.description;
  if (info.request_format !== undefined) view.request_format = info.request_format;
  if (info.response_format !== undefined) view.response_format = info.response_format;
  if (info.metadata !== undefined) view.metadata = info.metadata;
  return view;
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
