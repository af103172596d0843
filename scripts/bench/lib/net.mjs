// Small network helpers shared by the benchmark scripts (scripts/bench/*.mjs).
import net from 'node:net';
import WebSocket from 'ws';

/** Ports this process was given: the kernel may hand the same free port out twice in a row. */
const given = new Set();

/** A TCP port free on 127.0.0.1 right now, and not one this process was already given (two listeners of one run). */
export async function freePort() {
  for (;;) {
    const port = await new Promise((resolve, reject) => {
      const server = net.createServer();
      server.on('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const { port: bound } = server.address();
        server.close(() => resolve(bound));
      });
    });
    if (!given.has(port)) {
      given.add(port);
      return port;
    }
  }
}

/** Polls `cond` every 50 ms until it is truthy; throws after `timeoutMs`. */
export async function waitUntil(cond, timeoutMs) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out after ${timeoutMs} ms`);
}

/** True once an engine at `url` accepts a worker (its first frame is `workerregistered`). */
export function probe(url) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    const done = (ok) => {
      ws.removeAllListeners();
      ws.on('error', () => undefined);
      ws.terminate();
      resolve(ok);
    };
    ws.on('message', (d) => done(String(d).includes('workerregistered')));
    ws.on('error', () => done(false));
    ws.on('close', () => done(false));
  });
}

/** True when something accepts TCP connections on 127.0.0.1:`port`. */
export function portOpen(port) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

export function round2(x) {
  return Math.round(x * 100) / 100;
}
