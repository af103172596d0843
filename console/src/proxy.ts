/**
 * The two proxies of the console server: `/api/engine/<path>` to the engine's REST port (the Triggers page sends
 * HTTP requests this way), and `/ws/streams` to the stream socket (live updates).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer } from 'ws';
import { ConsoleErrorCode } from './error-codes.js';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'host', 'content-length']);
const MAX_BODY_BYTES = 8 * 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error(`request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Forwards the request to `target` (the REST port URL with path and query) and copies the answer back. */
export async function proxyHttp(req: IncomingMessage, res: ServerResponse, target: string): Promise<void> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (HOP_BY_HOP.has(name) || value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const method = req.method ?? 'GET';
  const body = method === 'GET' || method === 'HEAD' ? undefined : await readBody(req);
  let answer: Response;
  try {
    answer = await fetch(target, { method, headers, ...(body && body.length > 0 ? { body } : {}), redirect: 'manual' });
  } catch (err) {
    const message = `the engine's REST port (${new URL(target).host}) does not answer: ${(err as Error).message}`;
    res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: ConsoleErrorCode.EngineUnreachable, message } }));
    return;
  }
  const out: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name) && name !== 'content-encoding') out[name] = value;
  });
  res.writeHead(answer.status, out);
  res.end(Buffer.from(await answer.arrayBuffer()));
}

/** Relays frames between a browser socket and the stream socket; either side closing closes the other. */
export class StreamSocketProxy {
  private readonly wss = new WebSocketServer({ noServer: true });

  constructor(private readonly upstreamUrl: string) {}

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (browser) => this.relay(browser));
  }

  close(): void {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
  }

  private relay(browser: WebSocket): void {
    const upstream = new WebSocket(this.upstreamUrl);
    const pending: WebSocket.RawData[] = [];
    upstream.on('open', () => {
      for (const frame of pending.splice(0)) upstream.send(frame, { binary: false });
    });
    browser.on('message', (data) => {
      if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary: false });
      else pending.push(data);
    });
    upstream.on('message', (data, isBinary) => {
      if (browser.readyState === WebSocket.OPEN) browser.send(data, { binary: isBinary });
    });
    const closeBoth = (): void => {
      browser.close();
      upstream.terminate();
    };
    upstream.on('close', closeBoth);
    upstream.on('error', closeBoth);
    browser.on('close', closeBoth);
    browser.on('error', closeBoth);
  }
}
