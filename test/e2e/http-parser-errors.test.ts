/**
 * Requests svc-http's HTTP parser rejects before any route sees them, sent over a raw socket the way a broken or
 * hostile client sends them: too-large headers → 431, headers that never finish → 408, anything else malformed →
 * 400; each with the `{"error":{code, message}}` envelope saying what was wrong, and svc-http keeps serving.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EngineProcess } from '../harness.js';
import { startSvcHttp, type SvcHttp } from './http-fixtures/support.js';

let engine: EngineProcess;
let http: SvcHttp;

beforeAll(async () => {
  engine = await startEngine();
  // default_timeout 1000 → svc-http gives headers 6000 ms (default_timeout + 5 s).
  http = await startSvcHttp(engine.url, { default_timeout: 1000 });
}, 60_000);

afterAll(async () => {
  await http?.stop();
  await engine?.stop();
});

/** Writes `text` (without ending the socket: a real client waits for the answer) and resolves the raw answer. */
function raw(text: string): Promise<{ status: number; body: unknown }> {
  const { port } = new URL(http.base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
      const text = answer.slice(answer.indexOf('\r\n\r\n') + 4);
      resolve({ status, body: text ? (JSON.parse(text) as unknown) : undefined });
    });
    socket.write(text);
  });
}

describe('svc-http parser errors', () => {
  it('headers over the size limit: 431 with the error envelope', async () => {
    const res = await raw(`GET /x HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20 * 1024)}\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(res.body).toMatchObject({
      error: { code: 'REQUEST_HEADER_FIELDS_TOO_LARGE', message: expect.stringContaining('headers exceed') },
    });
  });

  it('headers that never finish: 408 with the error envelope', async () => {
    const res = await raw('GET /x HTTP/1.1\r\nhost: x\r\nx-slow: 1\r\n');
    expect(res.status).toBe(408);
    expect(res.body).toMatchObject({
      error: { code: 'REQUEST_TIMEOUT', message: expect.stringContaining('did not arrive within') },
    });
  }, 30_000);

  it('other malformed requests: 400, and the message says what the parser found', async () => {
    const badHeader = await raw('GET /x HTTP/1.1\r\nhost: x\r\nx-bad header: 1\r\n\r\n');
    expect(badHeader.status).toBe(400);
    expect(badHeader.body).toMatchObject({
      error: { code: 'BAD_REQUEST', message: expect.stringMatching(/^malformed HTTP request: .*header/i) },
    });
    const badLine = await raw('NOT HTTP AT ALL\r\n\r\n');
    expect(badLine.status).toBe(400);
    expect(badLine.body).toMatchObject({ error: { code: 'BAD_REQUEST' } });
  });

  it('keeps serving afterwards', async () => {
    const res = await fetch(`${http.base}/no-such-route`);
    expect(res.status).toBe(404);
  });
});
