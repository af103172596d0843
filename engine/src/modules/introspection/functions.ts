/**
 * `engine::functions::list` and `engine::functions::info` (docs/compatibility.md, "Functions (`engine::*`)").
 */
import type { EngineInternals, FunctionView, TriggerView, WorkerView } from '../module.js';
import { asArgs, invalid, isInternalId, matches, notFound, optBool, optString, optStrings } from './args.js';
import { ModuleErrorCode } from '../../error-codes.js';

const LIST = 'engine::functions::list';
const INFO = 'engine::functions::info';
const MAX_BATCH = 32;

/** The owning worker's reported name, else the id's first `::` segment. */
export function workerNameOf(fn: FunctionView, workers: Map<string, WorkerView>): string {
  const owner = fn.workerIds.length > 0 ? workers.get(fn.workerIds[fn.workerIds.length - 1]!) : undefined;
  if (owner?.reported || owner?.kind === 'in-process') return owner.name;
  return fn.id.split('::')[0] ?? fn.id;
}

function isHidden(fn: FunctionView): boolean {
  const internal = (fn.metadata as { internal?: unknown } | undefined)?.internal === true;
  return internal || isInternalId(fn.id);
}

function workerIndex(engine: EngineInternals): Map<string, WorkerView> {
  return new Map(engine.listWorkers().map((w) => [w.id, w]));
}

export function listFunctions(engine: EngineInternals, payload: unknown): unknown {
  const args = asArgs(payload, LIST);
  const search = optString(args, 'search', LIST);
  const prefix = optString(args, 'prefix', LIST);
  const worker = optString(args, 'worker', LIST);
  const wanted = optStrings(args, 'workers', LIST);
  const includeInternal = optBool(args, 'include_internal', LIST);
  const workers = workerIndex(engine);
  const functions = clusterFunctions(engine, workers)
    .filter(({ fn }) => includeInternal || !isHidden(fn))
    .filter(({ fn }) => prefix === undefined || fn.id.startsWith(prefix))
    .filter(({ fn, workerName }) => matches(search, fn.id, fn.description, workerName))
    .filter(({ workerName }) => worker === undefined || workerName === worker)
    .filter(({ workerName }) => wanted === undefined || wanted.includes(workerName))
    .sort((a, b) => (a.fn.id < b.fn.id ? -1 : a.fn.id > b.fn.id ? 1 : 0))
    .map(({ fn, workerName, remoteReplicas }) => summary(fn, workerName, remoteReplicas));
  return { functions };
}

interface Listed {
  fn: FunctionView;
  workerName: string;
  /** Replicas on the other engines of the cluster. */
  remoteReplicas: number;
}

/** This engine's functions, plus those only other engines of its cluster provide (when it is in one). */
function clusterFunctions(engine: EngineInternals, workers: Map<string, WorkerView>): Listed[] {
  const remote = new Map((engine.peerView()?.functions() ?? []).map((f) => [f.id, f]));
  const listed: Listed[] = engine.listFunctions().map((fn) => ({
    fn,
    workerName: workerNameOf(fn, workers),
    remoteReplicas: remote.get(fn.id)?.replicas ?? 0,
  }));
  const local = new Set(listed.map((l) => l.fn.id));
  for (const r of remote.values()) {
    if (local.has(r.id)) continue;
    const fn: FunctionView = { id: r.id, workerIds: [], workerNames: [], inFlight: 0 };
    if (r.description !== undefined) fn.description = r.description;
    if (r.metadata !== undefined) fn.metadata = r.metadata;
    listed.push({ fn, workerName: r.workerName, remoteReplicas: r.replicas });
  }
  return listed;
}

function summary(fn: FunctionView, workerName: string, remoteReplicas = 0): Record<string, unknown> {
  const replicas = fn.workerIds.length + remoteReplicas;
  const out: Record<string, unknown> = { function_id: fn.id, worker_name: workerName, replicas };
  if (fn.description !== undefined) out.description = fn.description;
  if (fn.metadata !== undefined) out.metadata = fn.metadata;
  return out;
}

function detail(fn: FunctionView, workerName: string, triggers: TriggerView[]): Record<string, unknown> {
  const out = summary(fn, workerName);
  if (fn.request_format !== undefined) out.request_schema = fn.request_format;
  if (fn.response_format !== undefined) out.response_schema = fn.response_format;
  out.registered_triggers = triggers
    .filter((t) => t.function_id === fn.id)
    .map((t) => ({ id: t.id, trigger_type: t.trigger_type, config: t.config }));
  return out;
}

export function functionInfo(engine: EngineInternals, payload: unknown): unknown {
  const args = asArgs(payload, INFO);
  const single = optString(args, 'function_id', INFO);
  const batch = optStrings(args, 'function_ids', INFO);
  if ((single === undefined) === (batch === undefined)) {
    throw invalid(INFO, 'give exactly one of "function_id" or "function_ids"');
  }
  if (batch !== undefined && batch.length > MAX_BATCH) {
    throw invalid(INFO, `"function_ids" holds at most ${MAX_BATCH} ids`);
  }
  const workers = workerIndex(engine);
  const triggers = engine.listTriggers();
  const describe = (id: string): Record<string, unknown> | undefined => {
    const fn = engine.getFunction(id);
    if (fn !== undefined) return detail(fn, workerNameOf(fn, workers), triggers);
    const remote = engine
      .peerView()
      ?.functions()
      .find((f) => f.id === id);
    if (remote === undefined) return undefined;
    const view: FunctionView = { id, workerIds: [], workerNames: [], inFlight: 0 };
    if (remote.description !== undefined) view.description = remote.description;
    if (remote.metadata !== undefined) view.metadata = remote.metadata;
    return { ...summary(view, remote.workerName, remote.replicas), engine_ids: remote.engineIds };
  };
  if (single !== undefined) {
    const found = describe(single);
    if (found === undefined) throw notFound(INFO, `Function ${single} not found`);
    return found;
  }
  return { functions: batch!.map((id) => describe(id) ?? { function_id: id, error: ModuleErrorCode.NotFoundInBatch }) };
}
