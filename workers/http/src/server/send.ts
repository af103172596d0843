/** Writing a decided response to the socket: hop-by-hop headers from a handler are dropped, length is ours. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PlainResponse } from './errors.js';

const DROPPED = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade']);
const NO_BODY_STATUS = new Set([204, 304]);

export function send(
  req: IncomingMessage,
  res: ServerResponse,
  response: PlainResponse,
  extraHeaders: Record<string, string> = {},
  closeConnection = false,
): void {
  if (res.headersSent || res.destroyed) return;
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (!DROPPED.has(name)) headers[name] = value;
  }
  Object.assign(headers, extraHeaders);
  const withBody = req.method !== 'HEAD' && !NO_BODY_STATUS.has(response.status);
  if (!NO_BODY_STATUS.has(response.status)) headers['content-length'] = String(response.body.length);
  if (closeConnection) headers.connection = 'close';
  res.writeHead(response.status, headers);
  res.end(withBody ? response.body : undefined);
}
