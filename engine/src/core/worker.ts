/**
 * One connected worker: its connection, the reattach token, what it registered, and the invocations it takes part
 * in (as caller or executor), so a disconnect can end all of them at once.
 */
import { InFlightMap, type EngineToWorker } from '@svc/sdk/core';
import type { Connection } from './connection.js';
import type { Claim } from './hooks.js';
import type { Invocation } from './invocation-table.js';
import { WorkerInvocations } from './worker-invocations.js';

/**
 * What `engine::workers::register` reports (docs/protocol.md, "1.6 Worker metadata"), sanitised by whoever stores it.
 */
export interface WorkerMetadata {
  runtime?: string;
  version?: string;
  name?: string;
  description?: string;
  os?: string;
  pid?: number;
  isolation?: string | null;
  telemetry?: unknown;
}

export class Worker {
  readonly id = crypto.randomUUID();
  readonly reattachToken = crypto.randomUUID();
  readonly connectedAtMs = Date.now();
  /** Function ids this worker provides (one replica each). */
  readonly functions = new Set<string>();
  /** Function ids it registered that a module claimed (registration interceptors): id → claim. */
  readonly claims = new Map<string, Claim>();
  /** Ids of trigger bindings it owns. */
  readonly triggers = new Set<string>();
  /** Trigger types it provides. */
  readonly triggerTypes = new Set<string>();
  /** Invocations it executes. */
  readonly executing = new WorkerInvocations<Invocation>(true);
  /** Invocations it started and waits for. */
  readonly waiting = new WorkerInvocations<Invocation>(false);
  /** Invocations it waits for whose executor sees another id than the caller's own (that id was in use). */
  readonly renamed = new InFlightMap<string, Invocation>();
  metadata: WorkerMetadata = {};
  closed = false;
  readonly supportsCancel: boolean;

  constructor(
    readonly conn: Connection,
    /** Name given by an in-process module before any metadata arrives. */
    readonly defaultName?: string,
  ) {
    this.supportsCancel = conn.features.has('cancel');
  }

  send(message: EngineToWorker): boolean {
    if (this.closed) return false;
    return this.conn.send(message);
  }

  /** The name shown to users: reported name, else the module name, else the id. */
  get name(): string {
    return this.metadata.name ?? this.defaultName ?? this.id;
  }
}
