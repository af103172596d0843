/** Writing a decided response to the socket: hop-by-hop headers from a handler are dropped, length is ours. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PlainResponse } from './errors.js';

const DROPPED = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade']);

export function send(
  req: IncomingMessage,
  res: ServerResponse,
  response: PlainResponse,
  extraHeaders?: Record<string, string>,
  closeConnection = false,
): void {
  if (res.headersSent || res.destroyed) return;
  // One flat [name, value, …] list handed to writeHead: no intermediate object per response.
  const headers: Array<string | string[]> = [];
  const own = response.headers;
  for (const name in own) {
    if (DROPPED.has(name)) continue;
    if (extraHeaders !== undefined && Object.hasOwn(extraHeaders, name)) continue; // ours win (CORS)
    headers.push(name, own[name] as string | string[]);
  }
  if (extraHeaders !== undefined) for (const name in extraHeaders) headers.push(name, extraHeaders[name] as string);
  const { status, body } = response;
  const noBody = status === 204 || status === 304;
  if (!noBody) headers.push('content-length', String(typeof body === 'string' ? Buffer.byteLength(body) : body.length));
  if (closeConnection) headers.push('connection', 'close');
  res.writeHead(status, headers as unknown as Record<string, string | string[]>);
  // A string body goes out with the head in one write (node joins them); a buffer makes it two.
  res.end(noBody || req.method === 'HEAD' ? undefined : body);
}
