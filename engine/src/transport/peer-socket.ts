/** A `ws` socket seen as a module's `PeerSocket` (socket-routes.ts). */
import type { WebSocket } from 'ws';
import type { PeerSocket } from './socket-routes.js';

export function wsPeerSocket(ws: WebSocket): PeerSocket {
  return {
    send(data, binary, done) {
      try {
        ws.send(data, { binary }, (err) => done(err ?? undefined));
      } catch (err) {
        done(err as Error);
      }
    },
    pause: () => ws.pause(),
    resume: () => ws.resume(),
    close(code, reason) {
      try {
        ws.close(code, reason);
      } catch {
        ws.terminate();
      }
    },
    terminate: () => ws.terminate(),
    onMessage: (listener) => ws.on('message', (data: Buffer, binary: boolean) => listener(data, binary)),
    onClose: (listener) => ws.on('close', (code: number, reason: Buffer) => listener(code, reason.toString())),
  };
}
