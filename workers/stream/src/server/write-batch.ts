import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';

/**
 * Batches the frames written to one client within the same turn of the event loop into one socket write: the
 * first frame corks the client's TCP socket, and every corked socket is uncorked once the current work is done
 * (`process.nextTick`, after the promise jobs of the turn). Under load, when several changes reach svc-stream in one
 * read from the engine, a client gets them in one write instead of one system call each. Order is unchanged, and
 * the socket's `writableLength` (and ws's `bufferedAmount`) still counts what is held.
 */
const corked = new Set<Duplex>();
let scheduled = false;

function flush(): void {
  scheduled = false;
  for (const socket of corked) socket.uncork();
  corked.clear();
}

/** The TCP socket under a `ws` WebSocket (ws keeps it as `_socket`; absent on a socket that is not connected). */
export function rawSocket(ws: WebSocket): Duplex | undefined {
  return (ws as unknown as { _socket?: Duplex })._socket;
}

export function corkUntilTurnEnds(socket: Duplex): void {
  if (corked.has(socket) || socket.destroyed) return;
  socket.cork();
  corked.add(socket);
  if (!scheduled) {
    scheduled = true;
    process.nextTick(flush);
  }
}
