/**
 * Reading a request body under a size limit, and turning it into the payload's `body` by content type.
 *
 * The limit is enforced while reading: a `content-length` above it is refused before a byte is read, and a
 * chunked body is abandoned at the first chunk that crosses it, so an oversized upload is never held in memory.
 */
import type { IncomingMessage } from 'node:http';
import { HttpErrorCode } from '../error-codes.js';

export class BodyTooLargeError extends Error {
  readonly code = HttpErrorCode.BodyTooLarge;
  constructor(readonly limit: number) {
    super(`request body is larger than the limit of ${limit} bytes (max_body_bytes)`);
  }
}

export class InvalidJsonError extends Error {
  readonly code = HttpErrorCode.InvalidJsonBody;
}

/** Refuses a declared content-length above the limit without reading; returns false when the body must be read. */
export function declaredTooLarge(req: IncomingMessage, limit: number): boolean {
  const declared = req.headers['content-length'];
  if (declared === undefined) return false;
  const length = Number(declared);
  return Number.isFinite(length) && length > limit;
}

/** Collects the body; rejects with BodyTooLargeError as soon as it crosses `limit` (the rest is not read). */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        chunks.length = 0;
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    const onClose = (): void => {
      if (req.complete) return;
      cleanup();
      reject(new Error('client closed the connection before the body was complete'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** The media type of a content-type header, lower-cased, without parameters. */
export function mediaType(contentType: string | undefined): string {
  if (!contentType) return '';
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

export function isJsonType(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json');
}

/**
 * Bodies svc-http reads whole (under the size limit) and parses into `body`: JSON, text and form-urlencoded.
 * Any other body (octet-stream, multipart/form-data, a PDF, no content type) is streamed to the handler through
 * its `request_body` channel instead, bounded by backpressure rather than by the limit.
 */
export function isBufferedType(type: string): boolean {
  return isJsonType(type) || type.startsWith('text/') || type === 'application/x-www-form-urlencoded';
}

/**
 * How deep a JSON body may nest. Its payload is written into the call with `JSON.stringify`, whose recursion
 * overflows the stack a few thousand levels down; a body past this limit is refused as the client's error.
 */
export const MAX_JSON_DEPTH = 1000;

/** Whether the (valid) JSON text nests arrays and objects deeper than `limit`; strings and their escapes skipped. */
export function textNestsDeeperThan(json: Buffer, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) depth--;
  }
  return false;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** True when the request carries a body: chunked, or a content-length above 0 (RFC 9112 §6.3). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) > 0);
}

/** True when the request has a body that should be streamed rather than read first. */
export function isStreamedBody(req: IncomingMessage): boolean {
  return hasBody(req) && !isBufferedType(mediaType(req.headers['content-type']));
}

/**
 * JSON types are parsed (malformed JSON throws InvalidJsonError naming the position); `text/*` is given as a
 * string; `application/x-www-form-urlencoded` as an object of strings (last value of a repeated key wins);
 * anything else, and an empty body, as null.
 */
export function parseBody(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) return null;
  const type = mediaType(contentType);
  if (isJsonType(type)) {
    const text = raw.toString('utf8');
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch (err) {
      throw new InvalidJsonError(`request body is not valid JSON: ${(err as Error).message}`);
    }
    // a body shorter than twice the limit cannot nest deeper: most bodies are never scanned
    if (raw.length > 2 * MAX_JSON_DEPTH && textNestsDeeperThan(raw, MAX_JSON_DEPTH)) {
      throw new InvalidJsonError(
        `request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels (the limit)`,
      );
    }
    return value;
  }
  if (type.startsWith('text/')) return raw.toString('utf8');
  if (type === 'application/x-www-form-urlencoded') {
    return Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
  }
  return null;
}
