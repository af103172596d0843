/**
 * Worker-manager access control (docs/adr/0007): what a listener with access rules (RBAC, a middleware function) plugs
 * into the WebSocket endpoint. A listener without a gate hands every frame straight to the core, so nothing here
 * costs anything when access control is off.
 *
 * Two points, both before the core: `admit` decides a new connection's session during the upgrade, and the
 * session's `receive` sees every decoded frame first (the registration check and the pre-dispatch check) and hands
 * it on to the core, possibly rewritten, possibly later. When the core grows its hook interface (registration
 * interceptors, dispatch middleware) these two points map onto it one to one.
 */
import type { ErrorBody, Message } from '@svc/sdk';
import type { Connection } from '../core/connection.js';
import type { Worker } from '../core/worker.js';

/** What the upgrade request tells about a connecting worker (the auth function's input). */
export interface UpgradeInfo {
  /** Header names in lower case; repeated headers joined with `, `. */
  headers: Record<string, string>;
  queryParams: Record<string, string[]>;
  ipAddress: string;
}

export type Admission = { ok: true; session: GateSession } | { ok: false; error: ErrorBody };

export interface ListenerGate {
  /** Decides whether a connection may join, and with which session. Never rejects. */
  admit(info: UpgradeInfo): Promise<Admission>;
}

export interface GateSession {
  /** The connection the core will see (it may rewrite frames sent to the worker); usually `conn` itself. */
  wrap(conn: Connection): Connection;
  /** One decoded frame from the worker; the session hands it to the core (in order) or answers it itself. */
  receive(worker: Worker, msg: Message, raw: string | undefined): void;
}
