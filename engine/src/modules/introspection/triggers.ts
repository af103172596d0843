/**
 * `engine::triggers::list` (trigger types), `engine::triggers::info`, `engine::registered-triggers::list` and
 * `engine::registered-triggers::info` (docs/compatibility.md, "Functions (`engine::*`)").
 */
import type { EngineInternals, TriggerView } from '../module.js';
import { workerNameOf } from './functions.js';
import { asArgs, isInternalId, matches, notFound, optBool, optString } from './args.js';

const TYPES_LIST = 'engine::triggers::list';
const TYPES_INFO = 'engine::triggers::info';
const LIST = 'engine::registered-triggers::list';
const INFO = 'engine::registered-triggers::info';
const SUMMARY_CHARS = 80;

export function listTriggerTypes(engine: EngineInternals, payload: unknown): unknown {
  const args = asArgs(payload, TYPES_LIST);
  const search = optString(args, 'search', TYPES_LIST);
  const prefix = optString(args, 'prefix', TYPES_LIST);
  const worker = optString(args, 'worker', TYPES_LIST);
  const includeInternal = optBool(args, 'include_internal', TYPES_LIST);
  const triggers = engine
    .listTriggerTypes()
    .filter((t) => includeInternal || !isInternalId(t.id))
    .filter((t) => prefix === undefined || t.id.startsWith(prefix))
    .map((t) => ({ id: t.id, worker_name: t.providerNames[0] ?? '', description: t.description ?? '', t }))
    .filter((x) => matches(search, x.id, x.description, x.worker_name))
    .filter((x) => worker === undefined || x.t.providerNames.includes(worker))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map(({ id, worker_name, description, t }) => ({
      id,
      worker_name,
      description,
      providers: t.providerNames.length,
    }));
  return { triggers };
}

export function triggerTypeInfo(engine: EngineInternals, payload: unknown): unknown {
  const args = asArgs(payload, TYPES_INFO);
  const id = optString(args, 'id', TYPES_INFO);
  const type = engine.listTriggerTypes().find((t) => t.id === id);
  if (type === undefined) throw notFound(TYPES_INFO, `Trigger type '${id ?? ''}' not found`);
  const out: Record<string, unknown> = {
    id: type.id,
    worker_name: type.providerNames[0] ?? '',
    description: type.description ?? '',
    instance_count: type.bindingCount,
    providers: type.providerNames,
  };
  if (type.trigger_request_format !== undefined) out.configuration_schema = type.trigger_request_format;
  if (type.call_request_format !== undefined) out.request_schema = type.call_request_format;
  return out;
}

function configSummary(config: unknown): string {
  const text = JSON.stringify(config) ?? 'null';
  return text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS)}…` : text;
}

function registered(t: TriggerView): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: t.id,
    trigger_type: t.trigger_type,
    function_id: t.function_id,
    worker_name: t.ownerName,
    config: t.config ?? null,
    config_summary: configSummary(t.config),
    status: t.status,
  };
  if (t.error !== undefined) out.error = t.error;
  return out;
}

export function listRegisteredTriggers(engine: EngineInternals, payload: unknown): unknown {
  const args = asArgs(payload, LIST);
  const search = optString(args, 'search', LIST);
  const type = optString(args, 'trigger_type', LIST);
  const fnId = optString(args, 'function_id', LIST);
  const worker = optString(args, 'worker', LIST);
  const includeInternal = optBool(args, 'include_internal', LIST);
  const registered_triggers = engine
    .listTriggers()
    .filter((t) => includeInternal || !isInternalId(t.trigger_type))
    .filter((t) => type === undefined || t.trigger_type === type)
    .filter((t) => fnId === undefined || t.function_id === fnId)
    .filter((t) => worker === undefined || t.ownerName === worker)
    .filter((t) => matches(search, t.id, t.trigger_type, t.function_id, t.ownerName))
    .map(registered);
  return { registered_triggers };
}

export function registeredTriggerInfo(engine: EngineInternals, payload: unknown): unknown {
  const args = asArgs(payload, INFO);
  const id = optString(args, 'id', INFO);
  const t = engine.listTriggers().find((x) => x.id === id);
  if (t === undefined) throw notFound(INFO, `Trigger '${id ?? ''}' not found`);
  const out = registered(t);
  if (t.metadata !== undefined) out.metadata = t.metadata;
  const type = engine.listTriggerTypes().find((x) => x.id === t.trigger_type);
  out.trigger = type === undefined ? null : { id: type.id, description: type.description ?? '' };
  const fn = engine.getFunction(t.function_id);
  out.function = fn === undefined ? null : { function_id: fn.id, description: fn.description ?? null };
  return out;
}

/** Function summaries for a set of ids (used by `engine::workers::info`). */
export function functionSummaries(engine: EngineInternals, ids: Set<string>): Record<string, unknown>[] {
  const workers = new Map(engine.listWorkers().map((w) => [w.id, w]));
  return engine
    .listFunctions()
    .filter((fn) => ids.has(fn.id))
    .map((fn) => {
      const out: Record<string, unknown> = { function_id: fn.id, worker_name: workerNameOf(fn, workers) };
      if (fn.description !== undefined) out.description = fn.description;
      return out;
    });
}
