/**
 * The client socket server on its own (real sockets, real `ws` clients, the in-memory adapter): docs/protocol.md §6
 * routing and the limits (frame size, slow consumers, silent clients, slow handshakes, floods). The auth function and
 * join/leave handlers through the engine are covered by test/e2e/stream-*.test.ts.
 */
import { connect } from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { MemoryStreamAdapter } from '../src/adapters/memory.js';
import { StreamClientServer, type ClientServerHooks, type ClientServerOptions } from '../src/server/client-server.js';

const logger = pino({ level: 'silent' });
const running: Array<{ server: StreamClientServer; adapter: MemoryStreamAdapter }> = [];
const sockets: WebSocket[] = [];

const DEFAULTS: Omit<ClientServerOptions, 'port'> = {
  host: '127.0.0.1',
  maxMessageBytes: 1024,
  maxBufferedBytes: 256 * 1024,
  maxMessagesPerSecond: 100,
  maxMissedPongs: 2,
  maxSubscriptions: 1024,
  pingIntervalMs: 30_000,
  handshakeTimeoutMs: 10_000,
  allowedOrigins: null,
};

const allowAll: ClientServerHooks = { authorizeJoin: async () => true, notifyLeave: () => {} };

async function startServer(options: Partial<ClientServerOptions> = {}, hooks: ClientServerHooks = allowAll) {
  const adapter = new MemoryStreamAdapter();
  await adapter.start();
  const server = new StreamClientServer({ ...DEFAULTS, port: 0, ...options }, adapter, hooks, logger);
  const port = await server.start();
  running.push({ server, adapter });
  return { server, adapter, url: `ws://127.0.0.1:${port}/`, port };
}

afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  await Promise.all(running.splice(0).map(async ({ server, adapter }) => (await server.close(), adapter.close())));
});

interface Frame {
  streamName: string;
  groupId: string;
  id: string | null;
  timestamp: number;
  event: { type: string; data?: unknown; event?: { type: string; data: unknown } };
}

async function client(url: string, options: ConstructorParameters<typeof WebSocket>[2] = {}) {
  const ws = new WebSocket(url, options);
  sockets.push(ws);
  const frames: Frame[] = [];
  ws.on('message', (data) => frames.push(JSON.parse((data as Buffer).toString()) as Frame));
  ws.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return { ws, frames, closed };
}

function join(ws: WebSocket, subscriptionId: string, streamName: string, groupId: string, id?: string) {
  ws.send(JSON.stringify({ type: 'join', data: { subscriptionId, streamName, groupId, ...(id ? { id } : {}) } }));
}

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

function status(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('open', () => {
      resolve(101);
      ws.terminate();
    });
    ws.on('error', reject);
  });
}

describe('stream client socket: routing (docs/protocol.md §6)', () => {
  it('syncs on join, then routes changes to group and item subscriptions, once per matching subscription', async () => {
    const { adapter, url } = await startServer();
    await adapter.set('todo', 'inbox', 'a', { id: 'a', title: 'milk' });
    const { ws, frames } = await client(url);
    join(ws, 'g1', 'todo', 'inbox');
    join(ws, 'i1', 'todo', 'inbox', 'b');
    await until(() => frames.length === 2);
    expect(frames[0]).toMatchObject({ id: null, event: { type: 'sync', data: [{ id: 'a', title: 'milk' }] } });
    expect(frames[1]).toMatchObject({ id: 'b', event: { type: 'sync', data: null } });
    await adapter.set('todo', 'inbox', 'b', { id: 'b' }); // group + item sub: 2 frames
    await adapter.set('todo', 'other', 'c', { id: 'c' }); // another group: none
    await adapter.publish({
      type: 'stream',
      timestamp: Date.now(),
      streamName: 'todo',
      groupId: 'inbox',
      id: null,
      event: { type: 'event', event: { type: 'typing', data: 1 } },
    }); // group-level event: group sub only
    await adapter.delete('todo', 'inbox', 'a'); // group sub only
    await until(() => frames.length === 6);
    await new Promise((r) => setTimeout(r, 50));
    expect(frames.slice(2).map((f) => `${f.id}:${f.event.type}`)).toEqual([
      'b:create',
      'b:create',
      'null:event',
      'a:delete',
    ]);
    expect(frames[5]?.event.data).toEqual({ id: 'a', title: 'milk' });
  });

  it('stops delivering after leave, ignores malformed frames, and says unauthorized to a refused join', async () => {
    const hooks: ClientServerHooks = {
      authorizeJoin: async (event) => event.stream_name !== 'secret',
      notifyLeave: () => {},
    };
    const { adapter, url, server } = await startServer({}, hooks);
    const { ws, frames } = await client(url);
    ws.send('not json');
    ws.send(JSON.stringify({ type: 'join', data: { streamName: 'todo' } }));
    join(ws, 's1', 'secret', 'g');
    await until(() => frames.length === 1);
    expect(frames[0]).toMatchObject({ streamName: 'secret', id: null, event: { type: 'unauthorized' } });
    expect(server.stats.subscriptions).toBe(0);
    join(ws, 's2', 'todo', 'g');
    await until(() => frames.length === 2);
    ws.send(JSON.stringify({ type: 'leave', data: { subscriptionId: 's2', streamName: 'todo', groupId: 'g' } }));
    await until(() => server.stats.subscriptions === 0);
    await adapter.set('todo', 'g', 'x', { id: 'x' });
    await new Promise((r) => setTimeout(r, 50));
    expect(frames).toHaveLength(2);
  });

  it('answers 404 off the / route and 426 to plain HTTP', async () => {
    const { url, port } = await startServer();
    expect(await status(`${url}stream/todo/inbox`)).toBe(404);
    const res = await fetch(`http://127.0.0.1:${port}/`);
    expect(res.status).toBe(426);
  });
});

describe('stream client socket: limits', () => {
  it('accepts a frame of exactly the limit and closes with 1009 above it; the server and other clients go on', async () => {
    const { url, adapter } = await startServer({ maxMessageBytes: 1024 });
    const bystander = await client(url);
    join(bystander.ws, 'b', 'todo', 'g');
    await until(() => bystander.frames.length === 1);
    const big = await client(url);
    const exact = JSON.stringify({ type: 'join', data: { subscriptionId: 'x', streamName: 'todo', groupId: 'g' } });
    big.ws.send(exact.padEnd(1024, ' '));
    await until(() => big.frames.length === 1);
    big.ws.send('x'.repeat(1025));
    expect((await big.closed).code).toBe(1009);
    await adapter.set('todo', 'g', 'i', { id: 'i' });
    await until(() => bystander.frames.length === 2);
    expect(bystander.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('disconnects a client that stops reading once its unsent data passes the cap', async () => {
    const { url, adapter, server } = await startServer({ maxBufferedBytes: 256 * 1024 });
    const reader = await client(url);
    const stalled = await client(url);
    join(reader.ws, 'r', 'big', 'g');
    join(stalled.ws, 's', 'big', 'g');
    await until(() => reader.frames.length === 1 && stalled.frames.length === 1);
    stalled.ws.pause();
    const payload = 'x'.repeat(64 * 1024);
    const rssBefore = process.memoryUsage().rss;
    for (let i = 0; i < 256; i++) {
      // One change per event-loop turn, as when each comes from its own invocation: 16 MiB in all.
      await adapter.set('big', 'g', `i${i % 8}`, { id: `i${i % 8}`, payload });
      await new Promise((r) => setImmediate(r));
    }
    await until(() => server.stats.connections === 1, 5000);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 * 1024 * 1024);
    await until(() => reader.frames.length === 257, 5000);
    stalled.ws.resume();
    const closed = await stalled.closed;
    expect([1013, 1006]).toContain(closed.code);
  });

  it('reaps a client that stops answering pings', async () => {
    const { url, server } = await startServer({ pingIntervalMs: 200, maxMissedPongs: 2 });
    const healthy = await client(url);
    const dead = await client(url, { autoPong: false });
    join(dead.ws, 'd', 'todo', 'g');
    await until(() => server.stats.subscriptions === 1);
    const started = Date.now();
    await dead.closed;
    expect(Date.now() - started).toBeLessThan(3000); // a deadline (ping 200 ms, 2 missed), not a speed figure
    await until(() => server.stats.subscriptions === 0, 500);
    expect(healthy.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('closes trickling handshakes at the handshake timeout while real clients still connect', async () => {
    const { port, url } = await startServer({ handshakeTimeoutMs: 500 });
    const started = Date.now();
    const trickling = Array.from({ length: 50 }, () => {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => {});
      socket.write('GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n'); // never finishes the headers
      const timer = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 100);
      return new Promise<number>((resolve) =>
        socket.once('close', () => {
          clearInterval(timer);
          resolve(Date.now() - started);
        }),
      );
    });
    const legit = await Promise.all(Array.from({ length: 10 }, () => status(url)));
    expect(legit).toEqual(Array(10).fill(101));
    const closedAfter = await Promise.all(trickling);
    expect(Math.max(...closedAfter)).toBeLessThan(5000); // the 500 ms bound, checked every 500 ms (Node default: 60 s)
  });

  it('rejects an upgrade with 2,000 headers without crashing', async () => {
    const { port, url } = await startServer();
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    const headers = Array.from({ length: 2000 }, (_, i) => `X-H${i}: ${'v'.repeat(10)}\r\n`).join('');
    socket.write(`GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n${headers}\r\n`);
    await new Promise((resolve) => socket.once('close', resolve));
    expect(answer).not.toMatch(/^HTTP\/1\.1 101/);
    expect(await status(url)).toBe(101);
  });

  it('closes a client that floods messages with 1008', async () => {
    const { url } = await startServer({ maxMessagesPerSecond: 20 });
    const flooder = await client(url);
    for (let i = 0; i < 100; i++) flooder.ws.send('{}');
    expect((await flooder.closed).code).toBe(1008);
  });

  it('closes a socket that holds more subscriptions than allowed with 1008', async () => {
    const { url, server } = await startServer({ maxSubscriptions: 3 });
    const greedy = await client(url);
    for (let i = 0; i < 3; i++) join(greedy.ws, `s${i}`, 'todo', `g${i}`);
    join(greedy.ws, 's0', 'todo', 'again'); // replacing an existing subscription is fine
    await until(() => greedy.frames.length === 4);
    join(greedy.ws, 's3', 'todo', 'g3');
    expect((await greedy.closed).code).toBe(1008);
    await until(() => server.stats.subscriptions === 0);
  });

  it('refuses an Origin outside allowed_origins with 403', async () => {
    const { url } = await startServer({ allowedOrigins: ['https://app.example'] });
    expect(await status(url, { origin: 'https://evil.example' })).toBe(403);
    expect(await status(url, { origin: 'https://app.example' })).toBe(101);
  });

  it('refuses at the HTTP level what the auth hook denies, before any upgrade', async () => {
    const decisions = {
      deny: { allow: false, status: 401, reason: 'unauthorized' },
      fail: { allow: false, status: 500, reason: 'authentication failed' },
      late: { allow: false, status: 503, reason: 'authentication timed out' },
    } as const;
    const { url, server } = await startServer(
      {},
      {
        ...allowAll,
        authenticate: async (input) => {
          const which = input.query_params.token?.[0] ?? '';
          return which in decisions ? decisions[which as keyof typeof decisions] : { allow: true, context: null };
        },
      },
    );
    expect(await status(`${url}?token=deny`)).toBe(401);
    expect(await status(`${url}?token=fail`)).toBe(500);
    expect(await status(`${url}?token=late`)).toBe(503);
    expect(server.stats.connections).toBe(0);
    expect(await status(`${url}?token=ok`)).toBe(101);
  });
});
