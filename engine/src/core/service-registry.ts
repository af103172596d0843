/**
 * Services workers declare with `registerservice` (docs/compatibility.md, "Wire messages"): stored per connection (a
 * service leaves with the connection that declared it) and listed by `engine::services::list`. Nothing routes by them.
 */
import type { RegisterService } from '@svc/sdk';
import type { Worker } from './worker.js';

export interface ServiceEntry {
  id: string;
  /** `name` as sent; an empty or absent name means the id. */
  name: string;
  description?: string;
  parent_service_id?: string;
  worker: Worker;
  registeredAtMs: number;
}

export class ServiceRegistry {
  private readonly byId = new Map<string, ServiceEntry>();
  private readonly byWorker = new Map<Worker, Set<string>>();

  /** Inserts or replaces (the last declaration wins, and its connection owns the entry). */
  register(worker: Worker, msg: RegisterService): void {
    const previous = this.byId.get(msg.id);
    if (previous !== undefined) this.byWorker.get(previous.worker)?.delete(msg.id);
    const entry: ServiceEntry = { id: msg.id, name: msg.name || msg.id, worker, registeredAtMs: Date.now() };
    if (msg.description !== undefined) entry.description = msg.description;
    if (msg.parent_service_id !== undefined) entry.parent_service_id = msg.parent_service_id;
    this.byId.set(msg.id, entry);
    let ids = this.byWorker.get(worker);
    if (ids === undefined) this.byWorker.set(worker, (ids = new Set()));
    ids.add(msg.id);
  }

  workerGone(worker: Worker): void {
    const ids = this.byWorker.get(worker);
    if (ids === undefined) return;
    this.byWorker.delete(worker);
    for (const id of ids) if (this.byId.get(id)?.worker === worker) this.byId.delete(id);
  }

  values(): IterableIterator<ServiceEntry> {
    return this.byId.values();
  }
}
