/**
 * The cluster's NATS fails: a restart of the nats-server (the engines report the outage, keep serving their own
 * workers, and route as one again within seconds of its return), and one engine partitioned from NATS (its
 * connection cut by a proxy: it stops claiming the other engines' functions, and they drop it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { connect } from 'nats';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SvcClient } from '@svc/sdk';
import { freePort, rawCall, waitFor, type EngineProcess } from '../harness.js';
import { ourWorker, peersOf, portOpen, startCluster, statusOf, waitListedEverywhere } from './cluster-support.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

const NATS_SERVER = process.env.SVC_TEST_NATS_SERVER ?? '/usr/sbin/nats-server';
const haveNats = existsSync(NATS_SERVER);
if (!haveNats) console.warn(`cluster NATS fault tests skipped: no nats-server at ${NATS_SERVER}`);

function startNats(port: number): Promise<ChildProcess> {
  const proc = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  return waitFor(() => portOpen(port), 10_000, 'nats-server').then(() => proc);
}

function stopProcess(proc: ChildProcess | undefined): Promise<void> {
  if (proc === undefined || proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    proc.once('exit', () => resolve());
    proc.kill('SIGKILL');
  });
}

/** A TCP proxy to the nats-server that the test can cut (every connection dropped, new ones refused). */
class CuttableProxy {
  private readonly sockets = new Set<net.Socket>();
  private cut = false;
  private readonly server = net.createServer((client) => {
    if (this.cut) return client.destroy();
    const upstream = net.connect(this.target, '127.0.0.1');
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });

  constructor(private readonly target: number) {}

  listen(port: number): Promise<void> {
    return new Promise((resolve) => this.server.listen(port, '127.0.0.1', () => resolve()));
  }

  setCut(cut: boolean): void {
    this.cut = cut;
    if (cut) for (const s of this.sockets) s.destroy();
  }

  close(): void {
    this.setCut(true);
    this.server.close();
  }
}

describe.skipIf(!haveNats)('NATS faults', () => {
  let natsPort: number;
  let nats: ChildProcess | undefined;
  let proxy: CuttableProxy;
  let engines: EngineProcess[] = [];
  const clients: SvcClient[] = [];

  beforeAll(async () => {
    natsPort = await freePort();
    nats = await startNats(natsPort);
    const proxyPort = await freePort();
    proxy = new CuttableProxy(natsPort);
    await proxy.listen(proxyPort);
    // two engines straight on NATS, a third through the proxy
    const direct = await startCluster(2, `nats://127.0.0.1:${natsPort}`, 'faults');
    const viaProxy = await startCluster(1, `nats://127.0.0.1:${proxyPort}`, 'faults', 2);
    engines = [...direct, ...viaProxy];
    const [a, b, c] = engines.map((e) => e.url) as [string, string, string];
    for (const [label, url] of [
      ['a', a],
      ['b', b],
      ['c', c],
    ] as const) {
      const w = ourWorker(url, `w-${label}`);
      w.registerFunction(`${label}::id`, () => label);
      clients.push(w);
    }
    for (const label of ['a', 'b', 'c']) await waitListedEverywhere([a, b, c], `${label}::id`);
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.shutdown()));
    await Promise.all(engines.map((e) => e.stop()));
    proxy?.close();
    await stopProcess(nats);
  });

  it('an engine cut off from NATS stops claiming remote functions, and the others drop it', async () => {
    const [a, b, c] = engines as [EngineProcess, EngineProcess, EngineProcess];
    const cId = (await statusOf(c.url)).engine_id;
    await expect(clients[2]!.trigger({ function_id: 'a::id', payload: {} })).resolves.toBe('a');
    proxy.setCut(true);
    await waitFor(async () => (await statusOf(c.url)).state === 'degraded', 10_000, 'C reports degraded');
    expect((await statusOf(c.url)).engines).toEqual([]);
    const fromC = await rawCall(c.url, 'a::id', {});
    expect(fromC.error?.code).toBe('function_not_found');
    await expect(clients[2]!.trigger({ function_id: 'c::id', payload: {} })).resolves.toBe('c'); // its own still work
    await waitFor(async () => !(await peersOf(a.url)).includes(cId), 5000, 'A drops C');
    await waitFor(async () => !(await peersOf(b.url)).includes(cId), 5000, 'B drops C');
    proxy.setCut(false);
    await waitFor(async () => (await peersOf(a.url)).includes(cId), 10_000, 'C back');
    await waitListedEverywhere([c.url], 'a::id');
    await expect(clients[2]!.trigger({ function_id: 'a::id', payload: {} })).resolves.toBe('a');
  });

  it('a nats-server restart: the engines report the outage, keep local calls, and recover within seconds', async () => {
    const [a, b] = engines as [EngineProcess, EngineProcess];
    await stopProcess(nats);
    await waitFor(async () => (await statusOf(a.url)).state === 'degraded', 10_000, 'A reports the outage');
    const during = await statusOf(a.url);
    expect(during.nats.connected).toBe(false);
    expect(during.engines).toEqual([]);
    await expect(clients[0]!.trigger({ function_id: 'a::id', payload: {} })).resolves.toBe('a');
    const restartedAt = Date.now();
    nats = await startNats(natsPort);
    await waitFor(async () => (await peersOf(a.url)).length === 2, 15_000, 'A sees B and C again');
    await waitFor(async () => (await peersOf(b.url)).length === 2, 15_000, 'B sees A and C again');
    const recoveredMs = Date.now() - restartedAt;
    console.info(`cluster recovered ${recoveredMs} ms after nats-server came back`);
    await waitListedEverywhere([a.url], 'b::id');
    await expect(clients[0]!.trigger({ function_id: 'b::id', payload: {} })).resolves.toBe('b');
    expect((await statusOf(a.url)).state).toBe('ok');
  });

  it('shrugs off malformed cluster messages: the engine keeps serving and says what was wrong', async () => {
    const [a] = engines as [EngineProcess];
    const aId = (await statusOf(a.url)).engine_id;
    const nc = await connect({ servers: `nats://127.0.0.1:${natsPort}` });
    try {
      const enc = new TextEncoder();
      nc.publish('svc.faults.announce', enc.encode('not json'));
      nc.publish('svc.faults.announce', enc.encode(JSON.stringify({ v: 1, engine: 'x', url: 'u', functions: 3 })));
      nc.publish(`svc.faults.cancel.${aId}`, enc.encode('{}'));
      const reply = await nc.request(`svc.faults.call.${aId}`, enc.encode('{"id":1}'), { timeout: 5000 });
      expect(JSON.parse(new TextDecoder().decode(reply.data))).toMatchObject({
        error: { code: 'invalid_frame', message: expect.stringContaining('function_id') },
      });
      expect((await statusOf(a.url)).engines).toHaveLength(2); // the malformed announcement added nothing
      await expect(clients[0]!.trigger({ function_id: 'b::id', payload: {} })).resolves.toBe('b');
    } finally {
      await nc.close();
    }
  });
});
