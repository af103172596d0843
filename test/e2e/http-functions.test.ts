/**
 * HTTP-invoked functions through a real engine with the HTTP-functions module: a worker (iii-sdk and ours)
 * registers functions with an `invocation` config; invoking them makes the engine call the URL with the method,
 * headers and auth; JSON in and out; non-2xx is `http_request_failed`. The policy matrix runs through the engine
 * too, against a loopback canary listener that must see zero connections.
 */
import { createHmac } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { rawCall, spawnWorker, startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';
import { startSvcHttp, waitForRoute } from './http-fixtures/support.js';

const MODULE = 'modules::http_functions::HttpFunctionsModule';
const SECRET = 'hmac-s3cret';
const TOKEN = 'bearer-t0ken';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

async function upstream(): Promise<{ server: Server; port: number; seen: Seen[]; connections: () => number }> {
  const seen: Seen[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.url === '/fail') return void res.writeHead(503).end('upstream down');
      if (req.url === '/empty') return void res.writeHead(204).end();
      if (req.url === '/text') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('not json');
      if (req.url === '/api') {
        // An upstream answering in the shape of an HTTP trigger's response.
        const answer = { status_code: 202, headers: { 'x-upstream': 'yes' }, body: { echoed: JSON.parse(body) } };
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      }
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ echoed: JSON.parse(body || 'null') }));
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port, seen, connections: () => connections };
}

function registerFunctions(engine: EngineProcess, sdk: 'svc' | 'iii', functions: unknown[], triggers: unknown[] = []) {
  return spawnWorker('test/e2e/http-fixtures/http-functions-worker.mjs', {
    SVC_URL: engine.url,
    SDK: sdk,
    FUNCTIONS: JSON.stringify(functions),
    TRIGGERS: JSON.stringify(triggers),
    OTEL_ENABLED: 'false',
  });
}

/**
 * "<code>: <message>": the module's own code (http_request_failed, …) is either the wire code or, while the SDK
 * reports every thrown error as invocation_failed, the start of the message.
 */
const described = (answer: { error?: { code: string; message: string } }) =>
  `${answer.error?.code}: ${answer.error?.message}`;

const close = (s: Server) => new Promise<void>((r) => s.close(() => r()));

describe('HTTP functions with a permissive local policy', () => {
  let engine: EngineProcess;
  let up: Awaited<ReturnType<typeof upstream>>;
  const workers: Child[] = [];

  beforeAll(async () => {
    up = await upstream();
    engine = await startEngine({
      modules: [
        {
          class: MODULE,
          config: {
            security: { url_allowlist: ['http://127.0.0.1:*'], block_private_ips: false, require_https: false },
          },
        },
      ],
      env: { HF_SECRET: SECRET, HF_TOKEN: TOKEN },
    });
    const base = `http://127.0.0.1:${up.port}`;
    for (const sdk of ['svc', 'iii'] as const) {
      const worker = registerFunctions(engine, sdk, [
        {
          id: `${sdk}::ok`,
          invocation: {
            url: `${base}/ok`,
            method: 'POST',
            timeout_ms: 2000,
            headers: { 'X-Extra': 'yes' },
            auth: { type: 'hmac', secret_key: 'HF_SECRET' },
          },
        },
        { id: `${sdk}::bearer`, invocation: { url: `${base}/ok`, auth: { type: 'bearer', token_key: 'HF_TOKEN' } } },
        { id: `${sdk}::fail`, invocation: { url: `${base}/fail` } },
        { id: `${sdk}::empty`, invocation: { url: `${base}/empty`, method: 'DELETE' } },
        { id: `${sdk}::text`, invocation: { url: `${base}/text`, method: 'GET' } },
        { id: `${sdk}::nosecret`, invocation: { url: `${base}/ok`, auth: { type: 'bearer', token_key: 'HF_UNSET' } } },
      ]);
      workers.push(worker);
      await worker.waitForOutput('ready');
    }
  }, 60_000);

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await engine?.stop();
    await close(up.server);
  });

  describe.each([['svc'], ['iii']])('registered by the %s SDK', (sdk) => {
    it('calls the URL with JSON, headers and an hmac signature; the JSON answer is the result', async () => {
      const answer = await rawCall(engine.url, `${sdk}::ok`, { order: 7 });
      expect(answer).toEqual({ result: { echoed: { order: 7 } } });
      const req = up.seen.filter((s) => s.url === '/ok').at(-1) as Seen;
      expect(req.method).toBe('POST');
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.headers['x-extra']).toBe('yes');
      expect(req.headers['x-svc-function-path']).toBe(`${sdk}::ok`);
      const ts = String(req.headers['x-svc-timestamp']);
      const expected = createHmac('sha256', SECRET).update(`${ts}:${Buffer.from(req.body).toString('base64')}`);
      expect(req.headers['x-svc-signature']).toBe(`sha256=${expected.digest('hex')}`);
    });

    it('bearer auth from the engine environment', async () => {
      expect(await rawCall(engine.url, `${sdk}::bearer`, { b: 1 })).toEqual({ result: { echoed: { b: 1 } } });
      const req = up.seen.filter((s) => s.url === '/ok').at(-1) as Seen;
      expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    });

    it('non-2xx → http_request_failed naming the status; no body → no result; non-JSON → invalid_response', async () => {
      const failed = await rawCall(engine.url, `${sdk}::fail`, {});
      expect(described(failed)).toMatch(/http_request_failed.*answered 503/);
      expect(await rawCall(engine.url, `${sdk}::empty`, {})).toEqual({ result: undefined });
      expect(up.seen.some((s) => s.method === 'DELETE' && s.url === '/empty')).toBe(true);
      const text = await rawCall(engine.url, `${sdk}::text`, {});
      expect(described(text)).toMatch(/invalid_response/);
    });

    it('a registration naming an unset secret is refused with the variable name', async () => {
      const answer = await rawCall(engine.url, `${sdk}::nosecret`, {});
      expect(answer.error?.code).toBe('function_not_found');
      const worker = workers[sdk === 'svc' ? 0 : 1] as Child;
      const logs = worker.logs() + engine.logs();
      expect(logs).toMatch(/HF_UNSET' is not set on the engine host/);
    });
  });

  it('an HTTP route bound to an HTTP-invoked function: svc-http → engine → module → upstream and back', async () => {
    const http = await startSvcHttp(engine.url);
    const worker = registerFunctions(
      engine,
      'svc',
      [{ id: 'proxy::ok', invocation: { url: `http://127.0.0.1:${up.port}/api` } }],
      [{ type: 'http', function_id: 'proxy::ok', config: { api_path: '/proxy/:id', http_method: 'POST' } }],
    );
    try {
      await worker.waitForOutput('ready');
      await waitForRoute(http.base, '/proxy/1', 405);
      const res = await request(`${http.base}/proxy/9?q=1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"a":1}',
      });
      expect(res.statusCode).toBe(202);
      expect(res.headers['x-upstream']).toBe('yes');
      const body = (await res.body.json()) as { echoed: Record<string, unknown> };
      expect(body.echoed).toMatchObject({
        path: '/proxy/:id',
        path_params: { id: '9' },
        query_params: { q: '1' },
        body: { a: 1 },
      });
    } finally {
      await Promise.all([worker.stop(), http.stop()]);
    }
  });

  it('a function lives while any worker that registered it stays connected', async () => {
    const fn = [{ id: 'life::fn', invocation: { url: `http://127.0.0.1:${up.port}/ok` } }];
    const first = registerFunctions(engine, 'svc', fn);
    const second = registerFunctions(engine, 'iii', fn);
    try {
      await Promise.all([first.waitForOutput('ready'), second.waitForOutput('ready')]);
      expect(await rawCall(engine.url, 'life::fn', { n: 1 })).toEqual({ result: { echoed: { n: 1 } } });
      await first.stop();
      expect(await rawCall(engine.url, 'life::fn', { n: 2 })).toEqual({ result: { echoed: { n: 2 } } });
      await second.stop();
      await waitFor(
        async () => (await rawCall(engine.url, 'life::fn', {})).error?.code === 'function_not_found',
        5000,
        'life::fn to be gone',
      );
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });
});

/** A host name (not "localhost") that /etc/hosts maps to loopback, to prove the connect-path check on names. */
async function loopbackName(): Promise<string | undefined> {
  let hosts = '';
  try {
    hosts = readFileSync('/etc/hosts', 'utf8');
  } catch {
    return undefined;
  }
  for (const line of hosts.split('\n')) {
    const [ip, ...names] = line.trim().split(/\s+/);
    if (ip !== '127.0.0.1') continue;
    for (const name of names) {
      if (name.includes('localhost')) continue;
      const resolved = await lookup(name).catch(() => undefined);
      if (resolved?.address === '127.0.0.1') return name;
    }
  }
  return undefined;
}

describe('the policy through the engine (literal-address bypasses)', () => {
  let engine: EngineProcess;
  let canary: Awaited<ReturnType<typeof upstream>>;
  let worker: Child;
  let named: string | undefined;

  beforeAll(async () => {
    canary = await upstream();
    named = await loopbackName();
    engine = await startEngine({
      modules: [{ class: MODULE, config: { security: { url_allowlist: ['*'], require_https: false } } }],
    });
  }, 30_000);

  afterAll(async () => {
    await worker?.stop();
    await engine?.stop();
    await close(canary.server);
  });

  it('refuses every literal-address form at registration and a loopback name at connect; the canary sees nothing', async () => {
    const p = canary.port;
    const urls = [
      `http://127.0.0.1:${p}/`,
      `http://2130706433:${p}/`,
      `http://0x7f.1:${p}/`,
      `http://0177.0.0.1:${p}/`,
      `http://127.1:${p}/`,
      `http://0.0.0.0:${p}/`,
      `http://[::]:${p}/`,
      `http://[::1]:${p}/`,
      `http://[0:0:0:0:0:0:0:1]:${p}/`,
      `http://[::ffff:127.0.0.1]:${p}/`,
      `http://[::ffff:7f00:1]:${p}/`,
      `http://[::ffff:a9fe:a9fe]:${p}/`,
      `http://169.254.169.254:${p}/`,
      `http://100.64.0.1:${p}/`,
      `http://[fd00::1]:${p}/`,
      `http://[fe80::1]:${p}/`,
      `http://localhost:${p}/`,
      `http://localhost.:${p}/`,
      `http://evil@127.0.0.1:${p}/`,
    ];
    const functions = urls.map((url, i) => ({ id: `ssrf::${i}`, invocation: { url } }));
    if (named) functions.push({ id: 'ssrf::named', invocation: { url: `http://${named}:${p}/` } });
    worker = registerFunctions(engine, 'svc', functions);
    await worker.waitForOutput('ready');
    await waitFor(() => (worker.logs().match(/refused/g) ?? []).length >= urls.length, 5000, 'refusals');
    for (let i = 0; i < urls.length; i++) {
      const answer = await rawCall(engine.url, `ssrf::${i}`, {});
      expect(answer.error?.code, urls[i]).toBe('function_not_found');
    }
    if (named) {
      const answer = await rawCall(engine.url, 'ssrf::named', {});
      expect(described(answer)).toMatch(/url_not_allowed.*loopback/);
    }
    expect(canary.connections()).toBe(0);
  });
});

describe('without the HTTP-functions module', () => {
  it('refuses the registration with a clear error to the worker', async () => {
    const engine = await startEngine();
    const worker = registerFunctions(engine, 'svc', [{ id: 'x::fn', invocation: { url: 'https://example.test/' } }]);
    try {
      await worker.waitForOutput(/HTTP-functions module is not loaded/, 10000);
      expect((await rawCall(engine.url, 'x::fn', {})).error?.code).toBe('function_not_found');
    } finally {
      await worker.stop();
      await engine.stop();
    }
  });
});
