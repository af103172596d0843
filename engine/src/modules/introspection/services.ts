/**
 * `engine::services::list` (svc): the services workers declared with `registerservice`, and the services implied by
 * function ids (the part before the first `::`), each listed once, sorted by id.
 */
import type { EngineInternals } from '../module.js';
import { asArgs } from './args.js';

export function listServices(engine: EngineInternals, payload: unknown): unknown {
  asArgs(payload, 'engine::services::list');
  const services = new Map<string, Record<string, unknown>>();
  for (const s of engine.listServices()) {
    const row: Record<string, unknown> = {
      id: s.id,
      name: s.name,
      worker_name: s.workerName,
      source: 'registerservice',
    };
    if (s.description !== undefined) row.description = s.description;
    if (s.parent_service_id !== undefined) row.parent_service_id = s.parent_service_id;
    services.set(s.id, row);
  }
  for (const fn of engine.listFunctions()) {
    const cut = fn.id.indexOf('::');
    if (cut <= 0) continue;
    const id = fn.id.slice(0, cut);
    if (!services.has(id)) services.set(id, { id, name: id, source: 'function_ids' });
  }
  return { services: [...services.values()].sort((a, b) => String(a.id).localeCompare(String(b.id))) };
}
