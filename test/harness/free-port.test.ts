/**
 * The harness's free ports: a port a test gives the engine must still be free when the engine binds it, so it comes
 * from below the kernel's ephemeral range, where another process's `listen(0)` or outgoing connection cannot take it.
 */
import { readFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from '../harness.js';

const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

const listen = (port: number, host?: string) =>
  new Promise<Server>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('freePort', () => {
  it('gives distinct ports below the ephemeral range that the engine can bind on every interface', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 50; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(50);
    for (const port of ports) {
      expect(port).toBeLessThan(ephemeralLow);
      expect(port).not.toBe(25672);
    }
    const servers = await Promise.all(ports.slice(0, 10).map((port) => listen(port, '0.0.0.0')));
    await Promise.all(servers.map(close));
  });

  it('never gives a port that a listener holds, nor the local end of an open connection', async () => {
    const held = await listen(0, '127.0.0.1');
    const socket = connect((held.address() as { port: number }).port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const taken = new Set([(held.address() as { port: number }).port, socket.localPort]);
    for (let i = 0; i < 50; i++) expect(taken.has(await freePort())).toBe(false);
    socket.destroy();
    await close(held);
  });
});
