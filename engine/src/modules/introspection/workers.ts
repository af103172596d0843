/**
 * `engine::workers::list`, `engine::workers::info` and `engine::workers::register` (docs/protocol.md, "1.6 Worker
 * metadata"; docs/compatibility.md, "Functions").
 */
import type { EngineInternals, PeerWorkerView, WorkerView } from '../module.js';
import { asArgs, matches, notFound, optString } from './args.js';
import { functionSummaries } from './triggers.js';
import { sanitizeMetadata } from './worker-metadata.js';

const LIST = 'engine::workers::list';
const INFO = 'engine::workers::info';
/** Its caller is the worker reporting, so its calls carry `_caller_worker_id` even from engine modules. */
export const WORKERS_REGISTER_FUNCTION = 'engine::workers::register';
const REGISTER = WORKERS_REGISTER_FUNCTION;

function status(w: WorkerView): string {
  if (w.kind === 'in-process') return 'available';
  return w.activeInvocations > 0 ? 'busy' : 'connected';
}

function summary(w: WorkerView, engine: EngineInternals): Record<string, unknown> {
  const inProcess = w.kind === 'in-process';
  const engineId = engine.peerView()?.engineId;
  return {
    ...(engineId !== undefined ? { engine_id: engineId } : {}),
    name: w.name,
    description: w.description ?? null,
    version: inProcess ? engine.version : (w.version ?? null),
    id: w.id,
    runtime: inProcess ? 'engine' : (w.runtime ?? null),
    os: w.os ?? null,
    status: status(w),
    function_count: w.functionIds.length,
    connected_at_ms: w.connectedAtMs,
    active_invocations: w.activeInvocations,
    isolation: inProcess ? 'in-process' : (w.isolation ?? null),
    ip_address: w.ipAddress ?? null,
  };
}

/** A worker connected to another engine of the cluster (`engine_id` names that engine). */
function remoteSummary(w: PeerWorkerView): Record<string, unknown> {
  return {
    engine_id: w.engineId,
    name: w.name,
    description: w.description ?? null,
    version: w.version ?? null,
    id: w.id,
    runtime: w.runtime ?? null,
    os: w.os ?? null,
    status: w.activeInvocations > 0 ? 'busy' : 'connected',
    function_count: w.functionCount,
    connected_at_ms: w.connectedAtMs,
    active_invocations: w.activeInvocations,
    isolation: w.isolation ?? null,
    ip_address: w.ipAddress ?? null,
  };
}

/** WebSocket workers that never reported a pid are hidden, as docs/protocol.md "1.6 Worker metadata" says. */
function visible(w: WorkerView): boolean {
  return w.kind === 'in-process' || w.pid !== undefined;
}

export function listWorkers(engine: EngineInternals, payload: unknown): unknown {
  const args = asArgs(payload, LIST);
  const search = optString(args, 'search', LIST);
  const runtime = optString(args, 'runtime', LIST);
  const wantedStatus = optString(args, 'status', LIST);
  const remote = (engine.peerView()?.workers() ?? []).map(remoteSummary);
  const workers = engine
    .listWorkers()
    .filter(visible)
    .map((w) => summary(w, engine))
    .concat(remote)
    .filter((w) => matches(search, w.name as string, w.description as string | undefined, w.id as string))
    .filter((w) => runtime === undefined || w.runtime === runtime)
    .filter((w) => wantedStatus === undefined || w.status === wantedStatus)
    .sort((a, b) => (a.connected_at_ms as number) - (b.connected_at_ms as number));
  return { workers };
}

export function workerInfo(engine: EngineInternals, payload: unknown): unknown {
  const args = asArgs(payload, INFO);
  const name = optString(args, 'name', INFO);
  const id = optString(args, 'id', INFO);
  const worker = engine.listWorkers().find((w) => (id !== undefined ? w.id === id : w.name === name));
  if (worker === undefined) throw notFound(INFO, `Worker '${name ?? id ?? ''}' is not connected.`);
  const types = new Set(worker.triggerTypeIds);
  const bindings = new Set(worker.triggerIds);
  const out: Record<string, unknown> = {
    worker: { ...summary(worker, engine), pid: worker.pid ?? null, internal: worker.kind === 'in-process' },
    functions: functionSummaries(engine, new Set(worker.functionIds)),
    trigger_types: engine
      .listTriggerTypes()
      .filter((t) => types.has(t.id))
      .map((t) => ({ id: t.id, description: t.description ?? '' })),
    registered_triggers: engine
      .listTriggers()
      .filter((t) => bindings.has(t.id))
      .map((t) => ({ id: t.id, trigger_type: t.trigger_type, function_id: t.function_id, config: t.config })),
  };
  return out;
}

/** The metadata a worker sends right after connecting; `_caller_worker_id` (added by the core) names it. */
export function registerWorkerMetadata(engine: EngineInternals, payload: unknown): unknown {
  const args = asArgs(payload, REGISTER);
  const workerId = optString(args, '_caller_worker_id', REGISTER);
  if (workerId === undefined || !engine.setWorkerMetadata(workerId, sanitizeMetadata(args))) {
    throw notFound(REGISTER, 'engine::workers::register must be called by a connected worker');
  }
  return { success: true };
}
