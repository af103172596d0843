/**
 * Extra WebSocket routes on the engine's port, served by engine modules (the data channels' `/ws/channels/…`).
 * A module never sees `ws`: it gets a `PeerSocket`, the few operations a byte pipe needs (send with a completion
 * callback, pause/resume reading, close), so it stays testable with an in-memory socket and free of I/O imports.
 *
 * A route answers synchronously before the upgrade: refuse with an HTTP status (404 unknown, 400 malformed) or
 * accept, in which case `open` runs with the socket once the handshake is done.
 */

/** One accepted WebSocket, as a module sees it. */
export interface PeerSocket {
  /** Sends one frame; `done` runs once it was handed to the OS (or with the error that stopped it). */
  send(data: Buffer, binary: boolean, done: (err?: Error) => void): void;
  /** Stops reading from the peer (TCP backpressure reaches it); `resume()` starts again. */
  pause(): void;
  resume(): void;
  close(code: number, reason: string): void;
  terminate(): void;
  onMessage(listener: (data: Buffer, binary: boolean) => void): void;
  /** `code` 1006 when the socket dropped without a close handshake. */
  onClose(listener: (code: number, reason: string) => void): void;
}

export interface SocketRequest {
  /** The path without the query, e.g. `/ws/channels/<id>`. */
  path: string;
  query: URLSearchParams;
  remoteAddress: string | undefined;
}

export type SocketRouteAnswer =
  { kind: 'refuse'; status: 400 | 403 | 404; message: string } | { kind: 'accept'; open(socket: PeerSocket): void };

export type SocketRoute = (request: SocketRequest) => SocketRouteAnswer;

/** Path-prefix → route. Lookups are a scan of a handful of prefixes, only at upgrade time. */
export class SocketRoutes {
  private readonly routes = new Map<string, SocketRoute>();

  /** Serves every path under `prefix` (which must start and end with `/`). Returns the removal function. */
  add(prefix: string, route: SocketRoute): () => void {
    if (!prefix.startsWith('/') || !prefix.endsWith('/')) {
      throw new Error(`socket route prefix must start and end with '/': ${prefix}`);
    }
    if (this.routes.has(prefix)) throw new Error(`socket route ${prefix} is already served`);
    this.routes.set(prefix, route);
    return () => {
      if (this.routes.get(prefix) === route) this.routes.delete(prefix);
    };
  }

  match(path: string): SocketRoute | undefined {
    for (const [prefix, route] of this.routes) if (path.startsWith(prefix)) return route;
    return undefined;
  }
}
