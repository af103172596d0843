// Small network helpers shared by the benchmark scripts (scripts/bench/*.mjs).
import { readFileSync } from 'node:fs';
import net from 'node:net';
import WebSocket from 'ws';

/** Ports this process was given. */
const given = new Set();

/**
 * Bench ports come from 16000–19999, below the kernel's ephemeral range (32768–60999 unless the host says otherwise)
 * and below the test suite's slices (from 20000): a port there cannot be taken between the pick and the listener's
 * bind by the local end of one of the bench's own outgoing connections, as one the kernel picks with `listen(0)` can.
 * A host whose ephemeral range starts lower falls back to ports the kernel picks.
 */
const PORT_BASE = 16000;
const PORT_COUNT = 4000;

function ephemeralLow() {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : 32768;
  } catch {
    return 32768;
  }
}

const below = PORT_BASE + PORT_COUNT <= ephemeralLow();
let next = Math.floor(Math.random() * PORT_COUNT);

/** Binds `port` (0: the kernel picks) on every interface; the port it got, or undefined when it is taken. */
function tryPort(port) {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', (err) =>
      err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(undefined) : reject(err),
    );
    server.listen(port, () => {
      const { port: bound } = server.address();
      server.close(() => resolve(bound));
    });
  });
}

/** A TCP port free right now on every interface, and not one this process was already given (two listeners of one run). */
export async function freePort() {
  for (let tries = 0; ; tries++) {
    const candidate = below && tries < PORT_COUNT ? PORT_BASE + (next++ % PORT_COUNT) : 0;
    if (candidate !== 0 && given.has(candidate)) continue;
    const port = await tryPort(candidate);
    if (port !== undefined && !given.has(port)) {
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
