/** Shared by the svc-stream end-to-end tests: start svc-stream as a real process, connect clients. */
import { get } from 'node:http';
import pino from 'pino';
import WebSocket from 'ws';
import { registerWorker, type SvcClient } from '@svc/sdk';
import { freePort, rawCall, spawnWorker, waitFor, type Child } from '../harness.js';

export const STREAM_MAIN = 'workers/stream/dist/main.js';
export const MEMORY_ADAPTER = { class: 'modules::stream::adapters::KvStore', config: { store_method: 'in_memory' } };

export interface StreamProcess extends Child {
  port: number;
  url: string;
}

/** Spawns svc-stream against `engineUrl` (as someone would by hand) and waits until its socket listens. */
export async function startStream(engineUrl: string, config: Record<string, unknown> = {}): Promise<StreamProcess> {
  const port = await freePort();
  const moduleConfig = { port, host: '127.0.0.1', adapter: MEMORY_ADAPTER, ...config };
  const child = spawnWorker(STREAM_MAIN, {
    SVC_URL: engineUrl,
    SVC_MODULE_CONFIG: JSON.stringify(moduleConfig),
    SVC_LOG_LEVEL: 'warn',
  });
  // Ready when the engine routes a stream function to it and its client socket answers.
  await Promise.race([
    waitFor(
      async () => (await rawCall(engineUrl, 'stream::list_groups', { stream_name: '_' }, 2000)).error === undefined,
      15_000,
      'stream functions',
    ),
    child.exit.then((code) => {
      throw new Error(`svc-stream exited with ${code}:\n${child.logs()}`);
    }),
  ]);
  await waitForListening(port);
  return Object.assign(child, { port, url: `ws://127.0.0.1:${port}/` });
}

async function waitForListening(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const code = await upgradeStatus(`ws://127.0.0.1:${port}/`).catch(() => 0);
    if (code !== 0) return;
    if (Date.now() > deadline) throw new Error(`svc-stream did not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The HTTP status of a WebSocket upgrade attempt (101 when it succeeded). Rejects when nothing listens. */
export function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('open', () => {
      resolve(101);
      ws.close();
    });
    ws.on('error', reject);
  });
}

export async function sdkClient(engineUrl: string, name = 'stream-e2e'): Promise<SvcClient> {
  const client = registerWorker(engineUrl, { workerName: name, logger: pino({ level: 'silent' }) });
  await client.ready();
  return client;
}

export interface Frame {
  type: 'stream';
  streamName: string;
  groupId: string;
  id: string | null;
  timestamp: number;
  event: { type: string; data?: unknown; event?: { type: string; data: unknown } };
}

/** A raw `ws` client that records every frame. */
export async function rawClient(url: string) {
  const ws = new WebSocket(url);
  const frames: Frame[] = [];
  ws.on('message', (data) => frames.push(JSON.parse((data as Buffer).toString()) as Frame));
  ws.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const join = (subscriptionId: string, streamName: string, groupId: string, id?: string) =>
    ws.send(JSON.stringify({ type: 'join', data: { subscriptionId, streamName, groupId, ...(id ? { id } : {}) } }));
  return { ws, frames, join };
}

/** An upgrade request by hand: the refusal's status and body (status 101 and no body when it was accepted). */
export function upgradeResponse(url: string): Promise<{ status: number; body: string }> {
  const headers = {
    connection: 'Upgrade',
    upgrade: 'websocket',
    'sec-websocket-version': '13',
    'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
  };
  return new Promise((resolve, reject) => {
    const req = get(url.replace(/^ws/, 'http'), { headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      resolve({ status: 101, body: '' });
    });
    req.on('error', reject);
  });
}
