/**
 * The other engines of the cluster, as this engine last heard of them: one entry per engine, replaced whole by
 * each announcement and dropped when the engine leaves or stays silent past the heartbeat timeout. The index of
 * function id → providing engines is rebuilt when an engine's function set changes (never per call), so routing
 * reads it with one map lookup.
 */
import type { PeerFunctionView, PeerView, PeerWorkerView } from '../module.js';
import type { Announcement, AnnouncedTrigger } from './wire.js';

export interface Peer {
  readonly id: string;
  url: string;
  lastSeenMs: number;
  announcement: Announcement;
}

/** One engine providing a function, with its replica count (the routing weight). */
export interface Provider {
  readonly engineId: string;
  readonly replicas: number;
}

export type PeerChange = { kind: 'joined' | 'updated'; peer: Peer } | { kind: 'left'; peer: Peer; why: string };

export class PeerDirectory implements PeerView {
  private readonly peers = new Map<string, Peer>();
  private providersById = new Map<string, Provider[]>();

  constructor(
    readonly engineId: string,
    private readonly onChange: (change: PeerChange) => void,
  ) {}

  get size(): number {
    return this.peers.size;
  }

  list(): Peer[] {
    return [...this.peers.values()];
  }

  get(engineId: string): Peer | undefined {
    return this.peers.get(engineId);
  }

  /** The engines (other than this one) providing `functionId`; undefined when none does. */
  providers(functionId: string): readonly Provider[] | undefined {
    return this.providersById.get(functionId);
  }

  hasFunction(functionId: string): boolean {
    return this.providersById.has(functionId);
  }

  /** Applies an announcement (ours are ignored); `leaving` drops the engine at once. */
  apply(announcement: Announcement, nowMs: number): void {
    if (announcement.engine === this.engineId) return;
    if (announcement.leaving === true) {
      this.drop(announcement.engine, 'it left the cluster');
      return;
    }
    const known = this.peers.get(announcement.engine);
    if (known === undefined) {
      const peer: Peer = { id: announcement.engine, url: announcement.url, lastSeenMs: nowMs, announcement };
      this.peers.set(peer.id, peer);
      this.reindex();
      this.onChange({ kind: 'joined', peer });
      return;
    }
    const functionsChanged = functionKey(known.announcement) !== functionKey(announcement);
    const triggersChanged = triggerKey(known.announcement) !== triggerKey(announcement);
    known.lastSeenMs = nowMs;
    known.url = announcement.url;
    known.announcement = announcement;
    if (functionsChanged) this.reindex();
    if (functionsChanged || triggersChanged) this.onChange({ kind: 'updated', peer: known });
  }

  /** Drops every engine silent for longer than `timeoutMs`. */
  expire(nowMs: number, timeoutMs: number): void {
    for (const peer of [...this.peers.values()]) {
      if (nowMs - peer.lastSeenMs > timeoutMs) this.drop(peer.id, `no heartbeat for ${timeoutMs} ms`);
    }
  }

  drop(engineId: string, why: string): void {
    const peer = this.peers.get(engineId);
    if (peer === undefined) return;
    this.peers.delete(engineId);
    this.reindex();
    this.onChange({ kind: 'left', peer, why });
  }

  dropAll(why: string): void {
    for (const id of [...this.peers.keys()]) this.drop(id, why);
  }

  functions(): PeerFunctionView[] {
    const byId = new Map<string, PeerFunctionView>();
    for (const peer of this.peers.values()) {
      for (const fn of peer.announcement.functions) {
        const view = byId.get(fn.id);
        if (view !== undefined) {
          view.replicas += fn.replicas;
          view.engineIds.push(peer.id);
          continue;
        }
        const created: PeerFunctionView = {
          id: fn.id,
          workerName: fn.worker_name,
          replicas: fn.replicas,
          engineIds: [peer.id],
        };
        if (fn.description !== undefined) created.description = fn.description;
        if (fn.metadata !== undefined) created.metadata = fn.metadata;
        byId.set(fn.id, created);
      }
    }
    return [...byId.values()];
  }

  workers(): PeerWorkerView[] {
    const out: PeerWorkerView[] = [];
    for (const peer of this.peers.values()) {
      for (const w of peer.announcement.workers) {
        const view: PeerWorkerView = {
          engineId: peer.id,
          id: w.id,
          name: w.name,
          connectedAtMs: w.connected_at_ms,
          functionCount: w.function_count,
          activeInvocations: w.active_invocations,
        };
        if (w.description !== undefined) view.description = w.description;
        if (w.runtime !== undefined) view.runtime = w.runtime;
        if (w.version !== undefined) view.version = w.version;
        if (w.os !== undefined) view.os = w.os;
        if (w.pid !== undefined) view.pid = w.pid;
        if (w.isolation !== undefined) view.isolation = w.isolation;
        if (w.ip_address !== undefined) view.ipAddress = w.ip_address;
        out.push(view);
      }
    }
    return out;
  }

  /** Trigger bindings registered on other engines, with the engine each one lives on. */
  triggers(): { engineId: string; trigger: AnnouncedTrigger; typeProvidedThere: boolean }[] {
    const out: { engineId: string; trigger: AnnouncedTrigger; typeProvidedThere: boolean }[] = [];
    for (const peer of this.peers.values()) {
      const types = new Set(peer.announcement.trigger_types);
      for (const trigger of peer.announcement.triggers) {
        out.push({ engineId: peer.id, trigger, typeProvidedThere: types.has(trigger.trigger_type) });
      }
    }
    return out;
  }

  private reindex(): void {
    const index = new Map<string, Provider[]>();
    for (const peer of this.peers.values()) {
      for (const fn of peer.announcement.functions) {
        if (fn.replicas === 0) continue;
        const list = index.get(fn.id);
        const provider = { engineId: peer.id, replicas: fn.replicas };
        if (list === undefined) index.set(fn.id, [provider]);
        else list.push(provider);
      }
    }
    this.providersById = index;
  }
}

function functionKey(a: Announcement): string {
  return a.functions.map((f) => `${f.id}:${f.replicas}`).join(',');
}

function triggerKey(a: Announcement): string {
  return `${a.trigger_types.join(',')}|${a.triggers.map((t) => t.id).join(',')}`;
}
