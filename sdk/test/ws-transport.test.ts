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
  options: { autoPong?: boolean; features?: string } = {},
): Promise<{ wss: WebSocketServer; url: string; upgrades: IncomingMessage[]; sockets: WebSocket[] }> {
  const { features, ...wsOptions } = options;
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', ...wsOptions });
  servers.push(wss);
  // an engine says in its upgrade answer which optional features it accepts
  if (features !== undefined) wss.on('headers', (headers) => headers.push(`x-svc-features: ${features}`));
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

/** A transport open on `s`, with the messages the server's socket receives, each as the text it came in. */
async function openRecording(s: Awaited<ReturnType<typeof server>>) {
  const t = new WsTransport(s.url);
  const r = recorder();
  t.start(r.events);
  await waitFor(() => r.log.opens === 1, 3000, 'open');
  const received: string[] = [];
  s.sockets[0]!.on('message', (data: Buffer) => received.push(data.toString()));
  return { t, r, received };
}

describe('WsTransport', () => {
  it('announces its features (cancel, frame batches, appended fields) next to the user headers and decodes inbound frames', async () => {
    const s = await server();
    const t = new WsTransport(s.url, { headers: { 'x-test': '1', 'X-Svc-Features': 'other' } });
    const r = recorder();
    t.start(r.events);
    await waitFor(() => r.log.messages.length === 1, 3000, 'first frame');
    expect(r.log.messages[0]).toEqual({ type: 'workerregistered', worker_id: 'w1' });
    expect(s.upgrades[0]?.headers['x-test']).toBe('1');
    expect(s.upgrades[0]?.headers['x-svc-features']).toBe('cancel,batch,appended-fields,other');
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

  it('sends the frames of a tick as one batch message to an engine that accepts batches, and splits those it receives', async () => {
    const s = await server({ features: 'batch' });
    const { t, r, received } = await openRecording(s);
    for (let i = 0; i < 5; i++) t.send({ type: 'registerfunction', id: `batch::f${i}` });
    await waitFor(() => received.length > 0, 3000, 'the batch');
    await new Promise((res) => setTimeout(res, 50));
    // one message; its frames in order, separated by RS
    expect(received).toHaveLength(1);
    const frames = received[0]!.split('\x1e').map((f) => JSON.parse(f) as { id: string });
    expect(frames.map((f) => f.id)).toEqual(['batch::f0', 'batch::f1', 'batch::f2', 'batch::f3', 'batch::f4']);
    // the engine's batches: each frame decoded on its own, in order; a malformed one is skipped, not the others
    s.sockets[0]!.send(['{"type":"pong"}', '{"type":', '{"type":"ping"}'].join('\x1e'));
    await waitFor(() => r.log.messages.length === 3, 3000, 'the frames of the batch');
    expect(r.log.messages.slice(1)).toEqual([{ type: 'pong' }, { type: 'ping' }]);
    await t.close();
  });

  it('sends one frame per message to a server that does not accept batches', async () => {
    const { t, received } = await openRecording(await server());
    for (let i = 0; i < 5; i++) t.send({ type: 'registerfunction', id: `single::f${i}` });
    await waitFor(() => received.length === 5, 3000, 'five messages');
    expect(received.map((m) => (JSON.parse(m) as { id: string }).id)).toEqual([
      'single::f0',
      'single::f1',
      'single::f2',
      'single::f3',
      'single::f4',
    ]);
    await t.close();
  });
});
