/**
 * svc-http end to end: a real engine, svc-http as its own process, and functions in worker processes on both SDKs
 * (iii-sdk@0.22.1 and ours). Every status path svc-http answers (docs/errors.md, "HTTP triggers (svc-http)"), with real
 * HTTP requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startEngine, type Child, type EngineProcess } from '../harness.js';
import { startHttpWorker, startSvcHttp, waitForRoute, type SvcHttp } from './http-fixtures/support.js';

let engine: EngineProcess;
let http: SvcHttp;
const workers: Child[] = [];

beforeAll(async () => {
  engine = await startEngine();
  http = await startSvcHttp(engine.url, { default_timeout: 1500, body_limit_bytes: 64 * 1024 });
  for (const [sdk, prefix] of [
    ['svc', 'ours'],
    ['iii', 'iii'],
  ] as const) {
    const worker = startHttpWorker(engine.url, sdk, prefix, { CONFLICTS: '1' });
    workers.push(worker);
    await worker.waitForOutput('ready');
    await waitForRoute(http.base, `/${prefix}/html`);
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await http?.stop();
  await engine?.stop();
});

describe.each([['ours'], ['iii']])('HTTP triggers with %s SDK functions', (p) => {
  it('maps the request into the payload and the result into the response', async () => {
    const res = await request(`${http.base}/${p}/echo/42?q=1&q=2&x=y`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Custom': 'Yes' },
      body: JSON.stringify({ name: 'n', list: [1, 2] }),
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers['x-fn']).toBe(p);
    expect(res.headers['content-type']).toBe('application/json');
    const { got, metadata } = (await res.body.json()) as { got: Record<string, unknown>; metadata: unknown };
    // The trigger's metadata is the invocation metadata (never merged into the payload).
    expect(metadata).toEqual({ route: 'echo' });
    expect(got).toMatchObject({
      path: `/${p}/echo/:id`,
      method: 'POST',
      path_params: { id: '42' },
      query_params: { q: '2', x: 'y' },
      body: { name: 'n', list: [1, 2] },
      trigger: { type: 'http', path: `/${p}/echo/:id`, method: 'POST' },
    });
    expect(got.headers).toMatchObject({ 'x-custom': 'Yes', 'content-type': 'application/json' });
  });

  it('sends a raw string body under the handler content-type; HEAD is served by the GET route', async () => {
    const res = await request(`${http.base}/${p}/html`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html');
    expect(await res.body.text()).toBe('<b>hi</b>');
    const head = await request(`${http.base}/${p}/html`, { method: 'HEAD' });
    expect(head.statusCode).toBe(200);
    expect(await head.body.text()).toBe('');
  });

  it('handler error → 500 with its code and message, an error_id, and no stack', async () => {
    const res = await request(`${http.base}/${p}/fail`);
    expect(res.statusCode).toBe(500);
    const text = await res.body.text();
    const body = JSON.parse(text) as { error: { code: string; message: string; error_id: string } };
    expect(body.error.code).toBe('invocation_failed');
    expect(body.error.message).toBe(`boom from ${p}`);
    expect(body.error.error_id).toMatch(/^[0-9a-f]+$/);
    expect(text).not.toMatch(/\bat .*\.m?js/);
    // The stack goes to svc-http's log, under the same error_id.
    await http.waitForOutput(new RegExp(`"error_id":"${body.error.error_id}".*"stack":".*boom from ${p}`), 5000);
  });

  it('unknown route → 404, other method → 405 with Allow', async () => {
    const missing = await request(`${http.base}/${p}/nope`);
    expect(missing.statusCode).toBe(404);
    expect(await missing.body.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'Not Found' } });
    const wrong = await request(`${http.base}/${p}/echo/1`, { method: 'DELETE' });
    expect(wrong.statusCode).toBe(405);
    expect(wrong.headers.allow).toBe('POST');
    expect(await wrong.body.json()).toMatchObject({ error: { code: 'METHOD_NOT_ALLOWED' } });
  });

  it('malformed JSON → 400 naming the problem; too large → 413', async () => {
    const bad = await request(`${http.base}/${p}/echo/1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":',
    });
    expect(bad.statusCode).toBe(400);
    const body = (await bad.body.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('INVALID_JSON');
    expect(body.error.message).toMatch(/not valid JSON/);
    // valid JSON, but 5,000 levels deep: refused, where writing it into the call would overflow svc-http's stack
    const deep = await request(`${http.base}/${p}/echo/1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '['.repeat(5000) + ']'.repeat(5000),
    });
    expect(deep.statusCode).toBe(400);
    expect(await deep.body.json()).toEqual({
      error: {
        code: 'INVALID_JSON',
        message: 'request body nests arrays and objects deeper than 1000 levels (the limit)',
      },
    });
    const big = await request(`${http.base}/${p}/echo/1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(100 * 1024) }),
    });
    expect(big.statusCode).toBe(413);
    expect(await big.body.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('condition false → 422 CONDITION_NOT_MET; condition true → the handler runs', async () => {
    const skipped = await request(`${http.base}/${p}/guarded`);
    expect(skipped.statusCode).toBe(422);
    expect(await skipped.body.json()).toEqual({
      error: { code: 'CONDITION_NOT_MET', message: 'Request condition not met' },
      skipped: true,
    });
    const allowed = await request(`${http.base}/${p}/allowed`);
    expect(allowed.statusCode).toBe(201);
    await allowed.body.dump();
  });

  it('a failing condition → 500 with its code; a bound function nobody provides → 500 function_not_found', async () => {
    const bad = await request(`${http.base}/${p}/badcondition`);
    expect(bad.statusCode).toBe(500);
    expect(await bad.body.json()).toMatchObject({ error: { code: 'invocation_failed', message: `boom from ${p}` } });
    const ghost = await request(`${http.base}/${p}/ghost`);
    expect(ghost.statusCode).toBe(500);
    expect(await ghost.body.json()).toMatchObject({ error: { code: 'function_not_found' } });
  });

  it('route middleware answers the request itself or lets it through', async () => {
    const denied = await request(`${http.base}/${p}/mw/3`);
    expect(denied.statusCode).toBe(401);
    expect(await denied.body.json()).toEqual({ phase: 'preHandler', denied: true });
    const passed = await request(`${http.base}/${p}/mw/3`, { headers: { 'x-token': 'ok' } });
    expect(passed.statusCode).toBe(201);
    expect(((await passed.body.json()) as { got: { path_params: unknown } }).got.path_params).toEqual({ id: '3' });
  });

  it('no answer within default_timeout → 504', async () => {
    const t0 = Date.now();
    const res = await request(`${http.base}/${p}/slow?ms=60000`);
    const elapsed = Date.now() - t0;
    expect(res.statusCode).toBe(504);
    expect(await res.body.json()).toMatchObject({ error: { code: 'GATEWAY_TIMEOUT' } });
    expect(elapsed).toBeGreaterThanOrEqual(1400);
  });

  it('a conflicting route is refused with a reason that reaches the registering worker', async () => {
    const worker = workers[p === 'ours' ? 0 : 1] as Child;
    await worker.waitForOutput(/already bound to function '\w+::echo'/, 5000);
    await worker.waitForOutput(/parameter ':name' is ':id' there/, 5000);
    // The original binding still serves.
    const res = await request(`${http.base}/${p}/echo/7`, { method: 'POST' });
    expect(res.statusCode).toBe(201);
    await res.body.dump();
  });
});

describe('cancellation', () => {
  it('a timed-out invocation is cancelled in the worker (our SDK)', async () => {
    const res = await request(`${http.base}/ours/slow?ms=60000`);
    expect(res.statusCode).toBe(504);
    await res.body.dump();
    await (workers[0] as Child).waitForOutput(/cancelled [0-9a-f-]{36}/, 3000);
  });

  it('a request the client abandons is cancelled in the worker (our SDK), long before the deadline', async () => {
    const worker = workers[0] as Child;
    const abandon = new AbortController();
    const pending = request(`${http.base}/ours/slow?ms=60000&tag=abandoned`, { signal: abandon.signal }).catch(
      (err: unknown) => err,
    );
    await worker.waitForOutput('started tag=abandoned', 5000);
    abandon.abort();
    expect(await pending).toBeInstanceOf(Error);
    // default_timeout is 1,500 ms here; the handler's signal fires on the abort itself.
    await worker.waitForOutput(/cancelled [0-9a-f-]{36} tag=abandoned/, 1000);
  });

  it('CORS: permissive without config, preflight answered without calling a function', async () => {
    const pre = await request(`${http.base}/ours/echo/1`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.test', 'access-control-request-method': 'POST' },
    });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    expect(String(pre.headers['access-control-allow-methods'])).toContain('POST');
    await pre.body.dump();
  });
});
