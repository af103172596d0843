/**
 * Reading a handler's streamed response from its `response` channel (README.md, "Streaming (data channels)"): text
 * frames are control messages (`{"type":"set_status","status_code":100..599}`, `{"type":"set_headers","headers":{…}}`;
 * anything else is ignored), binary frames are the body. The response starts at the first binary frame, or at the
 * channel's close when there is none.
 */
import type { Readable } from 'node:stream';
import type { ResponseReader } from './request-channels.js';

export interface StreamStart {
  /** `body`: a binary frame arrived (it is back at the head of `body`); `ended`: the channel closed without one;
   *  `failed`: the channel broke before any binary frame. */
  kind: 'body' | 'ended' | 'failed';
  status: number;
  headers: Record<string, string>;
  body: Readable;
}

/** Resolves when the streamed response can start (or is known not to come). Reading starts now. */
export function awaitStreamStart(reader: ResponseReader): Promise<StreamStart> {
  let status = 200;
  const headers: Record<string, string> = {};
  reader.onMessage((text) => {
    const control = parseControl(text);
    if (control?.type === 'set_status') status = control.status;
    else if (control?.type === 'set_headers') Object.assign(headers, control.headers);
  });
  const body = reader.stream;
  // The channel may break after the answer was decided (it is freed then): that must never be an unhandled error.
  body.on('error', () => undefined);
  return new Promise((resolve) => {
    const done = (kind: StreamStart['kind']): void => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      resolve({ kind, status, headers, body });
    };
    const onData = (chunk: Buffer): void => {
      body.pause();
      body.unshift(chunk);
      done('body');
    };
    const onEnd = (): void => done('ended');
    const onError = (): void => done('failed');
    body.on('data', onData);
    body.once('end', onEnd);
    body.once('error', onError);
  });
}

type Control = { type: 'set_status'; status: number } | { type: 'set_headers'; headers: Record<string, string> };

export function parseControl(text: string): Control | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const msg = value as { type?: unknown; status_code?: unknown; headers?: unknown };
  if (msg.type === 'set_status') {
    const code = msg.status_code;
    if (typeof code === 'number' && Number.isInteger(code) && code >= 100 && code <= 599) {
      return { type: 'set_status', status: code };
    }
    return undefined;
  }
  if (msg.type === 'set_headers' && typeof msg.headers === 'object' && msg.headers !== null) {
    const headers: Record<string, string> = {};
    for (const [name, v] of Object.entries(msg.headers)) if (typeof v === 'string') headers[name.toLowerCase()] = v;
    return { type: 'set_headers', headers };
  }
  return undefined;
}
