/**
 * Several engine URLs (the engines of one cluster): the transport connects to the first that answers, fails over
 * to the next when its connection drops, and gives up only after a full round when retries are exhausted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { WsTransport, parseEngineUrls } from '../src/connection/ws-transport.js';
import { freePort, waitFor } from '../../test/harness.js';

const servers: WebSocketServer[] = [];

function server(): Promise<{ url: string; sockets: WebSocket[]; wss: WebSocketServer }> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  servers.push(wss);
  const sockets: WebSocket[] = [];
  wss.on('connection', (ws) => {
    sockets.push(ws);
    ws.send(JSON.stringify({ type: 'workerregistered', worker_id: `w${sockets.length}` }));
  });
  return new Promise((resolve) =>
    wss.on('listening', () => {
      const { port } = wss.address() as { port: number };
      resolve({ url: `ws://127.0.0.1:${port}`, sockets, wss });
    }),
  );
}

/** Transports a test started, closed after it even when it fails (a live one would keep its server open). */
const transports: WsTransport[] = [];

afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
  for (const s of servers) for (const client of s.clients) client.terminate();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

function transport(...args: ConstructorParameters<typeof WsTransport>): WsTransport {
  const t = new WsTransport(...args);
  transports.push(t);
  return t;
}

function events() {
  const log = { opens: 0, closes: [] as { willReconnect: boolean }[] };
  return {
    log,
    handlers: {
      onOpen: () => void log.opens++,
      onMessage: () => undefined,
      onClose: (i: { willReconnect: boolean }) => void log.closes.push(i),
    },
  };
}

describe('WsTransport with several engine URLs', () => {
  it('skips an engine that is down and fails over when the connected one drops', async () => {
    const a = await server();
    const b = await server();
    // taken while a and b listen, so the kernel cannot hand this port to one of them as well
    const dead = `ws://127.0.0.1:${await freePort()}`;
    const t = transport(`${dead},${a.url},${b.url}`, { reconnection: { initialDelayMs: 5000 } });
    const { log, handlers } = events();
    t.start(handlers);
    await waitFor(() => a.sockets.length === 1 && log.opens === 1, 5000, 'connected to a');
    expect(t.url).toBe(a.url);
    a.sockets[0]!.terminate();
    // at once, not after the 5 s backoff
    await waitFor(() => b.sockets.length === 1 && log.opens === 2, 2000, 'failed over to b');
    expect(t.url).toBe(b.url);
    expect(log.closes).toMatchObject([{ willReconnect: true }]);
    await t.close();
  });

  it('gives up after one round over every URL when retries are off', async () => {
    const urls = [`ws://127.0.0.1:${await freePort()}`, `ws://127.0.0.1:${await freePort()}`];
    const t = transport(urls, { reconnection: { maxRetries: 0 } });
    const { log, handlers } = events();
    t.start(handlers);
    await waitFor(() => log.closes.length === 1, 5000, 'gave up');
    expect(log.closes[0]).toMatchObject({ willReconnect: false });
    expect(log.opens).toBe(0);
    await t.close();
  });

  it('rejects a URL list with an entry that is not a WebSocket URL, naming it', () => {
    expect(parseEngineUrls(' ws://a:1 , wss://b:2 ')).toEqual(['ws://a:1', 'wss://b:2']);
    expect(() => parseEngineUrls('ws://a:1,tcp://b:2')).toThrow(/'tcp:\/\/b:2' is not a ws:\/\/ or wss:\/\/ URL/);
    expect(() => parseEngineUrls(' , ')).toThrow(/expected ws:\/\/host:port/);
  });
});
