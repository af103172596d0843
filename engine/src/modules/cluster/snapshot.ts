/**
 * This engine's announcement: the functions, workers, trigger types and bindings of its socket workers. What
 * engine modules provide in-process (`engine::*`, `publish` ...) exists on every engine that loads the module and
 * is always served locally, so it is not announced; nor are the bindings the cluster module mirrors from others.
 */
import type { EngineInternals, WorkerView } from '../module.js';
import { WIRE_VERSION, type AnnouncedWorker, type Announcement } from './wire.js';

export function buildAnnouncement(engine: EngineInternals, engineId: string, url: string): Announcement {
  const socketWorkers = new Map<string, WorkerView>();
  for (const w of engine.listWorkers()) if (w.kind === 'ws') socketWorkers.set(w.id, w);
  const functions: Announcement['functions'] = [];
  for (const fn of engine.listFunctions()) {
    const owners = fn.workerIds.filter((id) => socketWorkers.has(id));
    if (owners.length === 0) continue;
    const owner = socketWorkers.get(owners[owners.length - 1]!)!;
    const entry: Announcement['functions'][number] = {
      id: fn.id,
      replicas: owners.length,
      worker_name: owner.reported ? owner.name : (fn.id.split('::')[0] ?? fn.id),
    };
    if (fn.description !== undefined) entry.description = fn.description;
    if (fn.metadata !== undefined) entry.metadata = fn.metadata;
    functions.push(entry);
  }
  const triggerTypes = engine
    .listTriggerTypes()
    .filter((t) => t.providerIds.some((id) => socketWorkers.has(id)))
    .map((t) => t.id);
  const triggers = engine
    .listTriggers()
    .filter((t) => socketWorkers.has(t.ownerId))
    .map((t) => {
      const out: Announcement['triggers'][number] = {
        id: t.id,
        trigger_type: t.trigger_type,
        function_id: t.function_id,
        config: t.config,
      };
      if (t.metadata !== undefined) out.metadata = t.metadata;
      return out;
    });
  return {
    v: WIRE_VERSION,
    engine: engineId,
    url,
    functions,
    workers: [...socketWorkers.values()].filter((w) => w.pid !== undefined).map(announcedWorker),
    trigger_types: triggerTypes,
    triggers,
  };
}

function announcedWorker(w: WorkerView): AnnouncedWorker {
  const out: AnnouncedWorker = {
    id: w.id,
    name: w.name,
    connected_at_ms: w.connectedAtMs,
    function_count: w.functionIds.length,
    active_invocations: w.activeInvocations,
  };
  if (w.description !== undefined) out.description = w.description;
  if (w.runtime !== undefined) out.runtime = w.runtime;
  if (w.version !== undefined) out.version = w.version;
  if (w.os !== undefined) out.os = w.os;
  if (w.pid !== undefined) out.pid = w.pid;
  if (w.isolation !== undefined) out.isolation = w.isolation;
  if (w.ipAddress !== undefined) out.ip_address = w.ipAddress;
  return out;
}
