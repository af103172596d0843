/**
 * Streaming HTTP through svc-http (workers/http/README.md, "Streaming (data channels)") with handlers written on the
 * unmodified iii-sdk@0.22.1 and iii's `http()` helper: a large upload streamed in past the buffered-body limit, a
 * several-MiB download byte-exact, Server-Sent Events flushed one by one and cancelled when the client leaves,
 * urlencoded and multipart forms, and a classic `{status_code, headers, body}` handler next to them.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { request } from 'undici';
import { spawnWorker, startEngine, type Child, type EngineProcess } from '../harness.js';
import { startSvcHttp, waitForRoute, type SvcHttp } from './http-fixtures/support.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const BODY_LIMIT = 256 * 1024;
let engine: EngineProcess;
let http: SvcHttp;
let worker: Child;

beforeAll(async () => {
  engine = await startEngine();
  http = await startSvcHttp(engine.url, { default_timeout: 10_000, body_limit_bytes: BODY_LIMIT });
  worker = spawnWorker('test/e2e/http-fixtures/iii-stream-worker.mjs', { SVC_URL: engine.url });
  await worker.waitForOutput('ready');
  await waitForRoute(http.base, '/st/download?size=1');
});

afterAll(async () => {
  await worker?.stop();
  await http?.stop();
  await engine?.stop();
});

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe('streaming HTTP with iii-sdk http() handlers', () => {
  it('streams a large PDF upload in (past the buffered-body limit), chunk by chunk', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(8 * 1024 * 1024)]);
    const res = await request(`${http.base}/st/upload`, {
      method: 'POST',
      headers: { 'content-type': 'application/pdf' },
      body: pdf,
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers['x-upload']).toBe('done');
    const got = (await res.body.json()) as { bytes: number; chunks: number; sha256: string; body: unknown };
    expect(got).toMatchObject({ bytes: pdf.length, sha256: sha256(pdf), body: null });
    expect(got.chunks).toBeGreaterThan(1);
  });

  it('streams a chunked upload without content-length', async () => {
    const parts = Array.from({ length: 40 }, (_, i) => Buffer.alloc(50_000, i));
    const res = await request(`${http.base}/st/upload`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: Readable.from(parts),
    });
    expect(res.statusCode).toBe(201);
    const got = (await res.body.json()) as { bytes: number; sha256: string };
    expect(got).toMatchObject({ bytes: 2_000_000, sha256: sha256(Buffer.concat(parts)) });
  });

  it('still refuses an oversized buffered (JSON) body with 413', async () => {
    const res = await request(`${http.base}/st/classic`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(BODY_LIMIT) }),
    });
    expect(res.statusCode).toBe(413);
    await res.body.dump();
  });

  it('streams a several-MiB download byte-exact with the handler status and headers', async () => {
    const size = 6 * 1024 * 1024 + 17;
    const res = await request(`${http.base}/st/download?size=${size}&seed=5`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe('attachment; filename="big.pdf"');
    const body = Buffer.from(await res.body.arrayBuffer());
    const expected = Buffer.alloc(size);
    for (let i = 0; i < size; i++) expected[i] = (5 + i) & 0xff;
    expect(body.length).toBe(size);
    expect(body.equals(expected)).toBe(true);
  });

  it('delivers Server-Sent Events one by one, each while the handler waits for it to be seen', async () => {
    // The handler writes event i+1 only after this client acknowledged event i: a response that buffered events
    // instead of flushing each one would never get past the first.
    const session = String(Math.random()).slice(2);
    const res = await request(`${http.base}/st/sse?n=4&session=${session}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    const events: string[] = [];
    let pending = '';
    for await (const chunk of res.body) {
      pending += (chunk as Buffer).toString();
      let end: number;
      while ((end = pending.indexOf('\n\n')) !== -1) {
        events.push(pending.slice(0, end));
        pending = pending.slice(end + 2);
        const ack = await request(`${http.base}/st/ack?session=${session}&i=${events.length - 1}`, { method: 'POST' });
        expect(ack.statusCode).toBe(204);
        await ack.body.dump();
      }
    }
    expect(events).toEqual([0, 1, 2, 3].map((i) => `id: ${i}\ndata: {"i":${i}}`));
  });

  it('cancels the SSE handler when the client goes away', async () => {
    const controller = new AbortController();
    const res = await request(`${http.base}/st/sse?n=100000&gap=50`, { signal: controller.signal });
    let events = 0;
    try {
      for await (const chunk of res.body) {
        events += (chunk as Buffer).toString().split('\n\n').length - 1;
        if (events >= 2) controller.abort();
      }
    } catch {
      // aborted on purpose
    }
    await worker.waitForOutput(/sse closed after \d+/, 15_000);
    const after = Number(/sse closed after (\d+)/.exec(worker.logs())?.[1]);
    expect(after).toBeLessThan(100000);
  });

  it('gives an urlencoded form parsed in body and raw in request_body', async () => {
    const res = await request(`${http.base}/st/form`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=J%C3%BCrgen&note=two+words&n=1',
    });
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toEqual({
      parsed: { name: 'Jürgen', note: 'two words', n: '1' },
      raw: 'name=J%C3%BCrgen&note=two+words&n=1',
    });
  });

  it('streams a multipart/form-data upload to the handler, file and fields intact', async () => {
    const file = randomBytes(700 * 1024);
    const boundary = '----svcboundary42';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nQuarterly report\r\n`),
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="doc"; filename="q3.pdf"\r\n` +
          'Content-Type: application/pdf\r\n\r\n',
      ),
      file,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await request(`${http.base}/st/multipart`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    });
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toEqual({
      bodyWas: null,
      parts: { title: 'Quarterly report', doc: { filename: 'q3.pdf', bytes: file.length, sha256: sha256(file) } },
    });
  });

  it('gives a bodiless GET an empty request_body that ends, many times over', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const res = await request(`${http.base}/st/empty-body`);
        return { status: res.statusCode, body: await res.body.json() };
      }),
    );
    for (const answer of answers) expect(answer).toEqual({ status: 200, body: { bytes: 0 } });
  });

  it('streams a response the handler writes after it returned', async () => {
    const res = await request(`${http.base}/st/late`);
    expect(res.statusCode).toBe(203);
    expect(res.headers['content-type']).toBe('text/plain');
    expect(await res.body.text()).toBe('written after the handler returned');
  });

  it('keeps classic handlers working, with the JSON body also readable from request_body', async () => {
    const res = await request(`${http.base}/st/classic`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(res.statusCode).toBe(202);
    expect(res.headers['x-classic']).toBe('1');
    expect(await res.body.json()).toEqual({ got: { a: 1 }, raw: '{"a":1}' });
  });
});
