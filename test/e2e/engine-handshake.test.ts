/**
 * Slow handshakes and header bombs on the engine port: an upgrade request whose headers trickle in is cut at
 * `handshake_timeout_ms`, a header bomb is refused without a crash, and real workers keep connecting meanwhile.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rawCall, startEngine, type EngineProcess } from '../harness.js';

// spawns real processes: generous limits for a loaded machine (the assertions carry the real bounds)
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let engine: EngineProcess;

beforeAll(async () => {
  engine = await startEngine({ config: { handshake_timeout_ms: 1000 } });
});

afterAll(async () => {
  await engine?.stop();
});

describe('upgrade requests', () => {
  it('closes a connection that trickles its headers once the handshake timeout passes', async () => {
    const socket = connect(engine.port, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    const openedAt = Date.now();
    socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const trickle = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 150);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const healthy = await rawCall(engine.url, 'engine::health::check', {});
    expect(healthy.result).toMatchObject({ status: 'healthy' });
    await closed;
    clearInterval(trickle);
    const elapsed = Date.now() - openedAt;
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(3500);
  });

  it('refuses a header bomb and keeps serving', async () => {
    const socket = connect(engine.port, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    const headers = Array.from({ length: 2000 }, (_, i) => `X-H${i}: ${'v'.repeat(20)}`).join('\r\n');
    const answer = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (d) => (text += d.toString()));
      socket.once('close', () => resolve(text));
    });
    socket.write(
      `GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n` +
        `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n${headers}\r\n\r\n`,
    );
    expect(await answer).toMatch(/^HTTP\/1\.1 431/);
    expect((await rawCall(engine.url, 'engine::health::check', {})).result).toMatchObject({ status: 'healthy' });
  });
});
