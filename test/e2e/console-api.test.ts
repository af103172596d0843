/**
 * The console backend without a browser: `svc console` against a real engine (svc-http and svc-state): the
 * `_console/*` routes through the console server and on the engine's REST port, the status codes of its errors,
 * the config endpoint, the SPA fallback and the stopped-engine answer.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ROOT,
  freePort,
  spawnWorker,
  startEngine,
  waitFor,
  waitForFunction,
  type Child,
  type EngineProcess,
} from '../harness.js';

let engine: EngineProcess;
let consoleProc: Child;
let base: string;
let restPort: number;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed JSON answer, checked by the assertions
async function json(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

beforeAll(async () => {
  restPort = await freePort();
  engine = await startEngine({
    modules: [
      { name: 'svc-http', config: { port: restPort, host: '127.0.0.1' } },
      {
        name: 'svc-state',
        config: { adapter: { class: 'modules::state::adapters::KvStore', config: { store_method: 'in_memory' } } },
      },
    ],
  });
  await waitForFunction(engine.url, 'state::set', 20000);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  consoleProc = spawnWorker('cli/dist/main.js', {}, [
    'console',
    '--port',
    String(port),
    '--bridge-port',
    String(engine.port),
    '--engine-port',
    String(restPort),
  ]);
  await consoleProc.waitForOutput('svc console ready', 20000);
  await waitForFunction(engine.url, 'engine::console::invoke', 20000);
}, 60_000);

afterAll(async () => {
  await consoleProc?.stop();
  await engine?.stop();
});

describe('svc console command line', () => {
  const svc = (args: string[]) =>
    spawnSync(process.execPath, [join(ROOT, 'cli/dist/main.js'), ...args], { encoding: 'utf8', timeout: 15000 });

  it('--help describes the flags; a bad flag value is a usage error (exit 2)', () => {
    const help = svc(['console', '--help']);
    expect(help.status).toBe(0);
    for (const flag of ['--port', '--host', '--engine-host', '--engine-port', '--ws-port', '--enable-flow']) {
      expect(help.stdout).toContain(flag);
    }
    expect(svc(['help', 'console']).stdout).toBe(help.stdout);
    const bad = svc(['console', '--port', 'abc']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--port must be an integer');
    expect(svc(['console', '--nope']).stderr).toContain('unknown option --nope');
  });
});

describe('svc console backend', () => {
  it('/api/config describes the console; / serves the app with the config injected', async () => {
    const config = await json('GET', '/api/config');
    expect(config.body).toMatchObject({
      enginePort: restPort,
      consolePort: Number(new URL(base).port),
      enableFlow: false,
    });
    const page = await (await fetch(`${base}/queues`)).text();
    expect(page).toContain('window.__CONSOLE_CONFIG__=');
    expect(page).toContain('<div id="root">');
  });

  it('static files never leave the web root; unknown assets are 404', async () => {
    const { request } = await import('node:http');
    const body = await new Promise<string>((resolve, reject) => {
      // Options, not a URL string: a URL would normalise the dots away before the request is sent.
      const { hostname, port } = new URL(base);
      const req = request({ hostname, port, path: '/%2e%2e/%2e%2e/package.json' }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end();
    });
    expect(body).not.toContain('@svc/console');
    expect((await fetch(`${base}/assets/nothing-here.js`)).status).toBe(404);
  });

  it('invoke returns a result, or the function error with its code, with duration and trace id', async () => {
    const ok = await json('POST', '/api/engine/_console/invoke', {
      function_id: 'state::set',
      payload: { scope: 's', key: 'k', value: 1 },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ ok: true, result: { new_value: 1 } });
    expect(ok.body.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(typeof ok.body.duration_ms).toBe('number');
    const missing = await json('POST', '/api/engine/_console/invoke', { function_id: 'nobody::here', payload: {} });
    expect(missing.body).toMatchObject({ ok: false, error: { code: 'function_not_found' } });
  });

  it('bad input is a 400 that says what is wrong; an unknown route is a 404', async () => {
    const noId = await json('POST', '/api/engine/_console/invoke', { payload: {} });
    expect(noId.status).toBe(400);
    expect(noId.body.error).toMatchObject({ code: 'console_bad_request' });
    expect(noId.body.error.message).toContain('function_id');
    const notJson = await fetch(`${base}/api/engine/_console/invoke`, { method: 'POST', body: '{nope' });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { message: string } }).error.message).toContain('not valid JSON');
    const badTimeout = await json('POST', '/api/engine/_console/invoke', { function_id: 'state::get', timeout_ms: -5 });
    expect(badTimeout.status).toBe(400);
    expect(badTimeout.body.error.message).toContain('timeout_ms');
    const unknown = await json('GET', '/api/engine/_console/nothing');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('console_not_found');
  });

  it('a function that is not registered (no observability worker) is a 404 function_not_found', async () => {
    const traces = await json('POST', '/api/engine/_console/otel/traces', {});
    expect(traces.status).toBe(404);
    expect(traces.body.error.code).toBe('function_not_found');
  });

  it('state routes: set, list the scope, delete', async () => {
    expect((await json('POST', '/api/engine/_console/states/cart/item', { key: 'a', value: { n: 1 } })).status).toBe(
      200,
    );
    const items = await json('POST', '/api/engine/_console/states/group', { scope: 'cart' });
    expect(items.body.items).toEqual([{ key: 'a', value: { n: 1 } }]);
    const groups = await json('GET', '/api/engine/_console/states/groups');
    expect(groups.body.groups).toContain('cart');
    const deleted = await json('DELETE', '/api/engine/_console/states/cart/item/a');
    expect(deleted.body).toEqual({ deleted: true, old_value: { n: 1 } });
  });

  it('the same routes answer on the engine REST port, as http triggers of engine::console::*', async () => {
    await waitFor(async () => (await fetch(`http://127.0.0.1:${restPort}/_console/functions`)).ok, 10000, 'REST route');
    const res = await fetch(`http://127.0.0.1:${restPort}/_console/functions?search=state::`);
    const body = (await res.json()) as { functions: { function_id: string }[] };
    expect(body.functions.map((f) => f.function_id)).toContain('state::set');
  });

  it('the reverse proxy forwards any other path to the REST port', async () => {
    const res = await fetch(`${base}/api/engine/_console/status`);
    expect(res.status).toBe(200);
    const proxied = await fetch(`${base}/api/engine/no/such/route`);
    expect(proxied.status).toBe(404);
  });

  it('when the engine stops, routes answer 503 engine_unreachable at once', async () => {
    await engine.stop();
    await waitFor(async () => (await json('GET', '/api/engine/_console/workers')).status === 503, 10000, '503');
    const answer = await json('GET', '/api/engine/_console/workers');
    expect(answer.body.error.code).toBe('engine_unreachable');
    expect(answer.body.error.message).toContain(`ws://127.0.0.1:${engine.port}`);
  });
});
