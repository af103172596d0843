/**
 * The WebSocket transport on its own, against a plain `ws` server (the socket, not the engine): the upgrade
 * headers, reconnection after the server drops the connection, and an idempotent close that stops reconnecting.
 */
import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { WsTransport, type EngineToWorker } from '../src/index.js';
import { waitFor } from '../../test/harness.js';

const servers: WebSocketServer[] = [];

function server(
  options: { autoPong?: boolean } = {},
): Promise<{ wss: WebSocketServer; url: string; upgrades: IncomingMessage[]; sockets: WebSocket[] }> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', ...options });
  servers.push(wss);
  const upgrades: IncomingMessage[] = [];
  const sockets: WebSocket[] = [];
  wss.on('connection', (ws, req) => {
    upgrades.push(req);
    sockets.push(ws);
    ws.send(JSON.stringify({ type: 'workerregistered', worker_id: `w${upgrades.length}` }));
  });
  return new Promise((resolve) =>
    wss.on('listening', () => {
      const { port } = wss.address() as { port: number };
      resolve({ wss, url: `ws://127.0.0.1:${port}`, upgrades, sockets });
    }),
  );
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

function recorder() {
  const log = { opens: 0, closes: [] as { willReconnect: boolean }[], messages: [] as EngineToWorker[] };
  return {
    log,
    events: {
      onOpen: () => void log.opens++,
      onMessage: (m: EngineToWorker) => void log.messages.push(m),
      onClose: (i: { willReconnect: boolean }) => void log.closes.push(i),
    },
  };
}

describe('WsTransport', () => {
  it('announces the cancel feature next to the user headers and decodes inbound frames', async () => {
    const s = await server();
    const t = new WsTransport(s.url, { headers: { 'x-test': '1', 'X-Svc-Features': 'other' } });
    const r = recorder();
    t.start(r.events);
    await waitFor(() => r.log.messages.length === 1, 3000, 'first frame');
    expect(r.log.messages[0]).toEqual({ type: 'workerregistered', worker_id: 'w1' });
    expect(s.upgrades[0]?.headers['x-test']).toBe('1');
    expect(s.upgrades[0]?.headers['x-svc-features']).toBe('cancel,other');
    expect(t.isOpen).toBe(true);
    await t.close();
    await t.close();
    expect(t.isOpen).toBe(false);
    expect(r.log.closes).toEqual([{ code: 1000, reason: 'client closing', willReconnect: false }]);
  });

  it('reconnects with backoff after the server drops it, and stops for good on close()', async () => {
    const s = await server();
    const t = new WsTransport(s.url, { reconnection: { initialDelayMs: 50, maxDelayMs: 100, jitterFactor: 0 } });
    const r = recorder();
    t.start(r.events);
    await waitFor(() => r.log.opens === 1, 3000, 'first open');
    s.sockets[0]?.terminate();
    await waitFor(() => r.log.opens === 2, 3000, 'reopen');
    expect(r.log.closes[0]?.willReconnect).toBe(true);
    expect(s.upgrades).toHaveLength(2);
    await t.close();
    await new Promise((res) => setTimeout(res, 300));
    expect(s.upgrades).toHaveLength(2);
    expect(t.send({ type: 'ping' })).toBe(false);
  });

  it('gives up after maxRetries failed attempts and says so', async () => {
    const s = await server();
    const url = s.url;
    await new Promise((res) => s.wss.close(res));
    const t = new WsTransport(url, { reconnection: { initialDelayMs: 10, maxDelayMs: 20, maxRetries: 2 } });
    const r = recorder();
    t.start(r.events);
    await waitFor(() => r.log.closes.length === 1, 3000, 'the transport to give up');
    expect(r.log.closes[0]?.willReconnect).toBe(false);
    expect(r.log.opens).toBe(0);
    await t.close();
  });

  it('pings on schedule, and terminates and reconnects when nothing arrives within the idle deadline', async () => {
    const s = await server({ autoPong: false }); // a server that never answers: a half-open connection
    const pings: number[] = [];
    s.wss.on('connection', (ws) => ws.on('ping', () => pings.push(Date.now())));
    const t = new WsTransport(s.url, {
      pingIntervalMs: 60,
      idleTimeoutMs: 300,
      reconnection: { initialDelayMs: 20, maxDelayMs: 20 },
    });
    const r = recorder();
    t.start(r.events);
    await waitFor(() => r.log.opens === 1, 3000, 'first open');
    const opened = Date.now();
    await waitFor(() => r.log.closes.length === 1, 3000, 'the idle deadline');
    expect(Date.now() - opened).toBeGreaterThanOrEqual(250);
    expect(pings.length).toBeGreaterThanOrEqual(2);
    await waitFor(() => r.log.opens === 2, 3000, 'the reconnect');
    await t.close();
  });
});
