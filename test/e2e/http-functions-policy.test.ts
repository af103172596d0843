/**
 * The outbound policy of HTTP functions (literal addresses, resolved addresses, redirects, allowlist parsing and
 * response limits), on real sockets: every refused URL is tried through the same guarded agent the engine module uses,
 * against a loopback canary listener that must record zero connections.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { checkIp, PolicyError, resolveChecked, UrlPolicy } from '../../engine/src/modules/http-functions/index.js';
import {
  guardedConnector,
  type GuardOptions,
} from '../../engine/src/modules/http-functions/security/guarded-connector.js';
import { sendOutbound } from '../../engine/src/modules/http-functions/outbound-request.js';

interface Listener {
  server: Server;
  port: number;
  connections: number;
  requests: Array<{ url: string; headers: Record<string, unknown> }>;
}

async function listen(handler?: RequestListener, tlsOptions?: { key: string; cert: string }): Promise<Listener> {
  const l: Listener = { server: undefined as unknown as Server, port: 0, connections: 0, requests: [] };
  const onRequest: RequestListener = (req, res) => {
    l.requests.push({ url: req.url ?? '', headers: req.headers });
    if (handler) handler(req, res);
    else res.end('{"canary":true}');
  };
  l.server = tlsOptions ? createHttpsServer(tlsOptions, onRequest) : createServer(onRequest);
  l.server.on('connection', (s: Socket) => {
    l.connections++;
    s.on('error', () => {});
  });
  await new Promise<void>((r) => l.server.listen(0, '127.0.0.1', r));
  l.port = (l.server.address() as AddressInfo).port;
  return l;
}

function agentFor(opts: Partial<GuardOptions> = {}): Agent {
  return new Agent({ connect: guardedConnector({ blockPrivateIps: true, connectTimeoutMs: 2000, ...opts }) });
}

const strict = { url_allowlist: ['*'], block_private_ips: true, require_https: false };

describe('checkIp', () => {
  it('judges canonical addresses, IPv4-mapped IPv6 as IPv4', () => {
    const blocked = [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::',
      '::1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      'fd00::1',
      'fe80::1',
      '[::1]',
      '224.0.0.1',
      '255.255.255.255',
    ];
    for (const ip of blocked) expect(checkIp(ip, true).allowed, ip).toBe(false);
    for (const ip of ['93.184.216.34', '2606:4700::1111', '::ffff:8.8.8.8'])
      expect(checkIp(ip, true).allowed, ip).toBe(true);
    // Without block_private_ips loopback is allowed, the unspecified address never is.
    expect(checkIp('127.0.0.1', false).allowed).toBe(true);
    expect(checkIp('0.0.0.0', false).allowed).toBe(false);
    expect(checkIp('::', false).allowed).toBe(false);
  });
});

describe('literal-address bypasses', () => {
  let canary: Listener;
  beforeAll(async () => (canary = await listen()));
  afterAll(() => new Promise<void>((r) => canary.server.close(() => r())));

  it('refuses every form, at the URL check and again in the connect path, with zero canary connections', async () => {
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
    const policy = new UrlPolicy(strict);
    // A policy that lets every URL through, so the connect-path check is proven on its own.
    const open = new UrlPolicy({ ...strict, block_private_ips: false });
    const agent = agentFor();
    for (const url of urls) {
      expect(() => policy.check(url), url).toThrow(PolicyError);
      const viaConnect = await sendOutbound(
        open,
        agent,
        { maxRedirects: 0, maxResponseBytes: 1024 },
        {
          url: url.replace('evil@', ''),
          method: 'GET',
          headers: {},
          body: undefined,
          credentialHeaders: new Set(),
          timeoutMs: 2000,
        },
      ).then(
        () => 'connected',
        (err: Error) =>
          `${(err as { code?: string }).code ?? ''} ${err.message} ${String((err as { cause?: Error }).cause?.message ?? '')}`,
      );
      expect(viaConnect, url).toMatch(/refused|never a valid destination/);
    }
    await agent.close();
    expect(canary.connections).toBe(0);
  });
});

describe('resolved addresses', () => {
  it('refuses a name resolving to loopback, or to a public and a private address', async () => {
    const opts = (addresses: string[]): GuardOptions => ({
      blockPrivateIps: true,
      connectTimeoutMs: 1000,
      resolver: async () => addresses,
    });
    await expect(resolveChecked('a.test', opts(['127.0.0.1']))).rejects.toThrow(/loopback/);
    await expect(resolveChecked('c.test', opts(['93.184.216.34', '10.0.0.1']))).rejects.toThrow(/private/);
    await expect(resolveChecked('d.test', opts(['2606:4700::1111']))).resolves.toBe('2606:4700::1111');
  });

  it('rebinding: the socket goes to the address that was checked, never to a second answer', async () => {
    const canary = await listen();
    const answers = [['93.184.216.34'], ['127.0.0.1']];
    const dialed: string[] = [];
    const agent = agentFor({
      resolver: async () => answers.shift() ?? ['127.0.0.1'],
      // Stand-in for the public host: a checked public address is dialed on a closed loopback port.
      dialAddress: (checked) => {
        dialed.push(checked);
        return checked === '93.184.216.34' ? '127.0.0.2' : checked;
      },
    });
    const policy = new UrlPolicy(strict);
    const base = { method: 'GET', headers: {}, body: undefined, credentialHeaders: new Set<string>(), timeoutMs: 1000 };
    const limits = { maxRedirects: 0, maxResponseBytes: 1024 };
    await sendOutbound(policy, agent, limits, { ...base, url: `http://rebind.test:${canary.port}/` }).catch(() => {});
    await sendOutbound(policy, agent, limits, { ...base, url: `http://rebind.test:${canary.port}/x` }).catch(() => {});
    await agent.close();
    expect(dialed).toEqual(['93.184.216.34']);
    expect(canary.connections).toBe(0);
    await new Promise<void>((r) => canary.server.close(() => r()));
  });
});

/** A throwaway certificate for api.example.test and other.example.test (openssl), or undefined without openssl. */
function testCertificate(): { key: string; cert: string } | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=api.example.test',
        '-addext',
        'subjectAltName=DNS:api.example.test,DNS:other.example.test',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const tlsPair = testCertificate();

// Skipped only where openssl is missing (it makes the throwaway certificate of the https origins).
describe.skipIf(!tlsPair)('redirects', () => {
  let canary: Listener;
  let origin: Listener;
  let other: Listener;
  let agent: Agent;
  const PUBLIC = '93.184.216.34';
  beforeAll(async () => {
    const { key, cert } = tlsPair as { key: string; cert: string };
    canary = await listen();
    other = await listen(undefined, { key, cert });
    origin = await listen(
      (req, res) => {
        const to: Record<string, string> = {
          '/metadata': `https://169.254.169.254:${canary.port}/latest`,
          '/loopback': `https://127.0.0.1:${canary.port}/`,
          '/downgrade': `http://api.example.test:${canary.port}/`,
          '/loop': '/loop',
          '/cross': `https://other.example.test:${other.port}/ok`,
          '/same': '/ok',
        };
        const location = to[req.url ?? ''];
        if (location) {
          res.writeHead(302, { location });
          res.end();
        } else res.end(JSON.stringify({ ok: true }));
      },
      { key, cert },
    );
    // Both names resolve to a public address (checked as such) that is dialed on loopback.
    agent = agentFor({
      resolver: async () => [PUBLIC],
      dialAddress: (a) => (a === PUBLIC ? '127.0.0.1' : a),
      ca: [cert],
    });
  });
  afterAll(async () => {
    await agent.close();
    await Promise.all([canary, origin, other].map((l) => new Promise<void>((r) => l.server.close(() => r()))));
  });

  const policy = new UrlPolicy({
    url_allowlist: ['https://*.example.test:*'],
    block_private_ips: true,
    require_https: true,
  });
  const call = (path: string, headers: Record<string, string> = {}) =>
    sendOutbound(
      policy,
      agent,
      { maxRedirects: 5, maxResponseBytes: 1024 },
      {
        url: `https://api.example.test:${origin.port}${path}`,
        method: 'GET',
        headers,
        body: undefined,
        credentialHeaders: new Set(['authorization', 'cookie']),
        timeoutMs: 3000,
      },
    );

  it('refuses a hop to metadata, to loopback, a downgrade to http, and a loop after the hop limit', async () => {
    await expect(call('/metadata')).rejects.toThrow(/169\.254\.169\.254.*refused/);
    await expect(call('/loopback')).rejects.toThrow(/127\.0\.0\.1.*refused/);
    await expect(call('/downgrade')).rejects.toThrow(/require_https/);
    await expect(call('/loop')).rejects.toMatchObject({ code: 'too_many_redirects' });
    expect(canary.connections).toBe(0);
    expect(origin.requests.filter((r) => r.url === '/loop').length).toBe(6);
  });

  it('keeps credentials on a same-origin hop and drops them across origins', async () => {
    const same = await call('/same', { authorization: 'Bearer s3cret', cookie: 'a=1' });
    expect(same.status).toBe(200);
    expect(origin.requests.find((r) => r.url === '/ok')?.headers.authorization).toBe('Bearer s3cret');
    const cross = await call('/cross', { authorization: 'Bearer s3cret', cookie: 'a=1', 'x-plain': 'y' });
    expect(cross.status).toBe(200);
    const hop = other.requests.find((r) => r.url === '/ok');
    expect(hop?.headers['x-plain']).toBe('y');
    expect(hop?.headers.authorization).toBeUndefined();
    expect(hop?.headers.cookie).toBeUndefined();
  });
});

describe('allowlist parsing', () => {
  it('matches the table exactly', () => {
    const policy = new UrlPolicy({
      url_allowlist: ['https://api.example.test'],
      block_private_ips: true,
      require_https: true,
    });
    const refused = [
      'https://api.example.test.evil.test/',
      'https://evil.test/?https://api.example.test',
      'https://api.example.test@evil.test/',
      'http://api.example.test/',
      'file:///etc/passwd',
      'data:text/plain,hi',
      'gopher://api.example.test/',
      'ws://api.example.test/',
    ];
    for (const url of refused) expect(() => policy.check(url), url).toThrow(PolicyError);
    for (const url of [
      'HTTPS://API.EXAMPLE.TEST/',
      'https://api.example.test/v1/x?y=1',
      'https://api.example.test:443/',
      'https://api.example.test:8443/', // no port in the entry: any port of the host
    ]) {
      expect(policy.check(url).hostname, url).toBe('api.example.test');
    }
  });

  it('supports wildcards in host and path', () => {
    const policy = new UrlPolicy({
      url_allowlist: ['https://*.svc.test/hooks/*', 'api.example.test:8443'],
      block_private_ips: true,
      require_https: false,
    });
    expect(() => policy.check('https://a.svc.test/hooks/x')).not.toThrow();
    expect(() => policy.check('https://a.b.svc.test/hooks/x/y')).not.toThrow();
    expect(() => policy.check('https://a.svc.test/other')).toThrow(PolicyError);
    expect(() => policy.check('https://svc.test.evil.test/hooks/x')).toThrow(PolicyError);
    expect(() => policy.check('http://api.example.test:8443/any')).not.toThrow();
    expect(() => policy.check('http://api.example.test/any')).toThrow(PolicyError); // the entry pins 8443
  });
});

describe('response limits', () => {
  it('aborts a dripping upstream at the timeout and an oversized one at the cap', async () => {
    const upstream = await listen((req, res) => {
      if (req.url === '/drip') {
        res.writeHead(200, { 'content-type': 'application/json' });
        const t = setInterval(() => res.write(' '), 50);
        res.on('close', () => clearInterval(t));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 32);
        let sent = 0;
        const pump = (): void => {
          while (sent < 100 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
          if (sent < 100 * 1024 * 1024) res.once('drain', pump);
          else res.end();
        };
        pump();
      }
    });
    const agent = agentFor({ blockPrivateIps: false });
    const policy = new UrlPolicy({ url_allowlist: ['*'], block_private_ips: false, require_https: false });
    const base = { method: 'GET', headers: {}, body: undefined, credentialHeaders: new Set<string>() };
    const t0 = Date.now();
    await expect(
      sendOutbound(
        policy,
        agent,
        { maxRedirects: 0, maxResponseBytes: 1 << 20 },
        {
          ...base,
          url: `http://127.0.0.1:${upstream.port}/drip`,
          timeoutMs: 500,
        },
      ),
    ).rejects.toMatchObject({ code: 'http_timeout' });
    expect(Date.now() - t0).toBeLessThan(550 + 500);
    await expect(
      sendOutbound(
        policy,
        agent,
        { maxRedirects: 0, maxResponseBytes: 1 << 20 },
        {
          ...base,
          url: `http://127.0.0.1:${upstream.port}/big`,
          timeoutMs: 5000,
        },
      ),
    ).rejects.toMatchObject({ code: 'response_too_large' });
    await agent.close();
    await new Promise<void>((r) => {
      upstream.server.closeAllConnections();
      upstream.server.close(() => r());
    });
  });
});
