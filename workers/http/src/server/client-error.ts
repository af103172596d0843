/**
 * The answer to a request node's HTTP parser rejected before any handler saw it, with the usual error envelope:
 * headers over the size limit → 431, headers that did not arrive in time → 408, any other parse error → 400 with
 * what the parser found wrong. A socket that is already gone gets nothing.
 */
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { HttpErrorCode } from '../error-codes.js';
import { errorEnvelope } from './errors.js';

interface ParserError extends Error {
  code?: string;
  reason?: string;
}

export function clientErrorAnswer(err: ParserError, headersTimeoutMs: number): { status: number; body: string } {
  const [status, code, message] = describe(err, headersTimeoutMs);
  return { status, body: JSON.stringify(errorEnvelope(status, code, message)) };
}

function describe(err: ParserError, headersTimeoutMs: number): [number, string, string] {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return [
        431,
        HttpErrorCode.HeadersTooLarge,
        `the request's headers exceed ${maxHeaderSize} bytes (the server's limit); send fewer or shorter headers`,
      ];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'HPE_HEADER_TIMEOUT':
      return [408, HttpErrorCode.RequestTimeout, `the request's headers did not arrive within ${headersTimeoutMs} ms`];
    default:
      return [400, HttpErrorCode.BadRequest, `malformed HTTP request: ${detail(err)}`];
  }
}

/** `Invalid method encountered (HPE_INVALID_METHOD)`: the parser's reason, and its code to search for. */
function detail(err: ParserError): string {
  const reason = err.reason ?? err.message;
  return err.code && !reason.includes(err.code) ? `${reason} (${err.code})` : reason;
}

export function answerClientError(err: ParserError, socket: Duplex, headersTimeoutMs: number): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const { status, body } = clientErrorAnswer(err, headersTimeoutMs);
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'content-type: application/json',
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}
