/**
 * The svc-http listener on a real socket, with functions answered by an in-test invoker (the engine path is
 * covered by test/e2e/http-*.test.ts). Checks the status paths and slot accounting of the server itself.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { request, Agent } from 'undici';
import pino from 'pino';
import { HttpServer } from '../src/server/http-server.js';
import { RouteTable, type HttpMethod } from '../src/server/route-table.js';
import type { Invoker } from '../src/server/dispatch.js';

const servers: HttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close(100)));
});

async function start(invoker: Invoker, opts: { limit?: number; timeout?: number; body?: number } = {}) {
  const routes = new RouteTable();
  const add = (
    id: string,
    method: HttpMethod,
    apiPath: string,
    conditionFunctionId?: string,
    middleware: string[] = [],
  ) =>
    routes.add({
      triggerId: id,
      functionId: id,
      apiPath,
      method,
      conditionFunctionId,
      middlewareFunctionIds: middleware,
      metadata: { m: id },
    });
  const server = new HttpServer({
    host: '127.0.0.1',
    port: 0,
    defaultTimeoutMs: opts.timeout ?? 2000,
    concurrencyLimit: opts.limit ?? 1024,
    maxBodyBytes: opts.body ?? 1024,
    cors: undefined,
    routes,
    invoker,
    logger: pino({ level: 'silent' }),
  });
  servers.push(server);
  const { port } = await server.start();
  return { server, add, base: `http://127.0.0.1:${port}` };
}

describe('HttpServer', () => {
  it('answers 413 for a declared and for a streamed oversized body without calling the function', async () => {
    let calls = 0;
    const { add, base } = await start({ invoke: async () => void calls++ }, { body: 1000 });
    add('up', 'POST', '/up');
    const declared = await request(`${base}/up`, { method: 'POST', body: Buffer.alloc(5000) });
    expect(declared.statusCode).toBe(413);
    expect(await declared.body.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    // Chunked: no length up front; the server must stop at the first chunk over the limit and answer 413.
    const socket = connect(Number(new URL(base).port), '127.0.0.1');
    let answer = '';
    socket.on('data', (c: Buffer) => (answer += c.toString()));
    socket.on('error', () => {});
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    socket.write('POST /up HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n');
    for (let i = 0; i < 12 && socket.writable; i++) socket.write(`64\r\n${'x'.repeat(100)}\r\n`);
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    expect(answer).toContain('connection: close');
    expect(calls).toBe(0);
  });

  it('gives 504 at the deadline and the slot back; condition false gives 422', async () => {
    const { server, add, base } = await start(
      {
        invoke: (id, _p, { timeoutMs }) =>
          id === 'cond' ? Promise.resolve(false) : new Promise((r) => setTimeout(r, timeoutMs + 500)),
      },
      { timeout: 300 },
    );
    add('slow', 'GET', '/slow');
    add('guarded', 'GET', '/guarded', 'cond');
    const t0 = Date.now();
    const res = await request(`${base}/slow`);
    expect(res.statusCode).toBe(504);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(await res.body.json()).toMatchObject({ error: { code: 'GATEWAY_TIMEOUT' } });
    expect(server.inFlight).toBe(0);
    const skipped = await request(`${base}/guarded`);
    expect(skipped.statusCode).toBe(422);
    expect(await skipped.body.json()).toEqual({
      error: { code: 'CONDITION_NOT_MET', message: 'Request condition not met' },
      skipped: true,
    });
  });

  it('admits exactly the limit, answers the rest 503 + Retry-After, and gets slots back on client abort', async () => {
    const release: Array<() => void> = [];
    const signals: AbortSignal[] = [];
    const { server, add, base } = await start(
      {
        invoke: (_id, _payload, { signal }) => {
          signals.push(signal);
          return new Promise((r) => release.push(() => r({ body: 'ok' })));
        },
      },
      { limit: 20, timeout: 5000 },
    );
    add('wait', 'GET', '/wait');
    const agent = new Agent({ connections: 100 });
    const controllers = Array.from({ length: 25 }, () => new AbortController());
    const settled: Array<{ status: number; retry: unknown }> = [];
    const results = controllers.map((c) =>
      request(`${base}/wait`, { dispatcher: agent, signal: c.signal }).then(
        async (r) => {
          await r.body.dump();
          settled.push({ status: r.statusCode, retry: r.headers['retry-after'] });
        },
        () => settled.push({ status: 0, retry: undefined }),
      ),
    );
    await expect.poll(() => settled.length).toBe(5);
    expect(settled.every((r) => r.status === 503 && r.retry === '1')).toBe(true);
    expect(server.inFlight).toBe(20);
    controllers.forEach((c) => c.abort());
    await Promise.all(results);
    expect(settled.filter((r) => r.status === 0)).toHaveLength(20);
    await expect.poll(() => server.inFlight).toBe(0);
    // The invocations were told that nobody waits for them any more.
    await expect.poll(() => signals.filter((x) => x.aborted).length).toBe(20);
    release.splice(0).forEach((r) => r());
    await agent.close();
  });

  it('ends a trickling upload at the deadline with 408, closes the socket and frees the slot', async () => {
    let calls = 0;
    const { server, add, base } = await start({ invoke: async () => void calls++ }, { timeout: 300 });
    add('up', 'POST', '/up');
    const { port } = new URL(base);
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (c: Buffer) => (answer += c.toString()));
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    socket.write('POST /up HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{');
    const drip = setInterval(() => socket.writable && socket.write(' '), 100);
    await expect.poll(() => server.inFlight).toBe(1);
    await closed;
    clearInterval(drip);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(answer).toContain('REQUEST_TIMEOUT');
    expect(server.inFlight).toBe(0);
    expect(calls).toBe(0);
  });

  it('leaves no timer behind after answered, timed-out and aborted requests', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const pending: Array<() => void> = [];
    // A long deadline: a request timer that is not cleared would still be pending when we count.
    const { add, base } = await start(
      {
        invoke: (id) => {
          if (id === 'fast') return Promise.resolve({ body: 1 });
          if (id === 'late') return Promise.reject(Object.assign(new Error('late'), { code: 'invocation_timeout' }));
          return new Promise((r) => pending.push(() => r(undefined)));
        },
      },
      { timeout: 30_000 },
    );
    add('fast', 'GET', '/fast');
    add('late', 'GET', '/late');
    add('hang', 'GET', '/hang');
    const agent = new Agent({ connections: 50 });
    const baseline = timers();
    const fast = Array.from({ length: 20 }, () =>
      request(`${base}/fast`, { dispatcher: agent }).then((r) => r.body.dump()),
    );
    const late = Array.from({ length: 10 }, () =>
      request(`${base}/late`, { dispatcher: agent }).then(async (r) => (await r.body.dump(), r.statusCode)),
    );
    const aborts = Array.from({ length: 10 }, () => new AbortController());
    const hung = aborts.map((c) => request(`${base}/hang`, { dispatcher: agent, signal: c.signal }).catch(() => 0));
    await Promise.all(fast);
    expect(await Promise.all(late)).toEqual(Array(10).fill(504));
    await expect.poll(() => pending.length).toBe(10);
    aborts.forEach((c) => c.abort());
    await Promise.all(hung);
    pending.splice(0).forEach((r) => r());
    await agent.close();
    await expect.poll(timers).toBeLessThanOrEqual(baseline);
  });

  it('survives odd request lines and headers and keeps serving', async () => {
    const { add, base } = await start({ invoke: async () => ({ body: 'ok' }) });
    add('p', 'GET', '/p/:id');
    const port = Number(new URL(base).port);
    const raw = (text: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        let answer = '';
        socket.on('data', (c: Buffer) => (answer += c.toString()));
        socket.on('error', () => resolve(answer));
        socket.on('close', () => resolve(answer));
        socket.end(text);
      });
    const odd = [
      'GET * HTTP/1.1\r\nhost: x\r\n\r\n',
      'GET http://other.test/p/1?a=1 HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n',
      'PROPFIND /p/1 HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n',
      'GET /p/%E0%A4%A HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n',
      'GET /p/a%2Fb HTTP/1.0\r\n\r\n',
      'GET /p/1 HTTP/1.1\r\nhost: x\r\nx-bad header: 1\r\n\r\n',
      'NOT HTTP AT ALL\r\n\r\n',
      `GET /p/1 HTTP/1.1\r\nhost: x\r\n${'x-a: b\r\n'.repeat(3000)}\r\n`,
    ];
    const answers = await Promise.all(odd.map(raw));
    expect(answers[1]).toMatch(/^HTTP\/1\.1 200/);
    expect(answers[2]).toMatch(/^HTTP\/1\.1 405/);
    expect(answers[3]).toMatch(/^HTTP\/1\.1 200/);
    expect(answers[4]).toMatch(/^HTTP\/1\.1 200/);
    expect(answers[6]).toMatch(/^HTTP\/1\.1 400/);
    const after = await request(`${base}/p/1`);
    expect(after.statusCode).toBe(200);
    await after.body.dump();
  });
});
