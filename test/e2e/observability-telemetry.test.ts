/**
 * The usage heartbeat (TelemetryModule): what it sends to its endpoint (a loopback receiver here), the opt-outs
 * (`enabled: false`, `DO_NOT_TRACK=1`), and that an unreachable endpoint neither fails nor delays start-up.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort, startEngine, waitFor } from '../harness.js';
import { sleep } from './observability-support.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let receiver: Server;
let endpoint: string;
const beats: Record<string, unknown>[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      beats.push({ ...(JSON.parse(body) as Record<string, unknown>), _path: req.url });
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/heartbeat`;
});

afterAll(async () => {
  await new Promise((r) => receiver?.close(r));
});

const telemetry = (config: Record<string, unknown>) => ({
  class: 'modules::telemetry::TelemetryModule',
  config: { endpoint, heartbeat_interval_secs: 1, ...config },
});

describe('the usage heartbeat', () => {
  it('POSTs the documented anonymous fields at start and every interval', async () => {
    beats.length = 0;
    const engine = await startEngine({ modules: [telemetry({})] });
    try {
      await waitFor(() => beats.length >= 2, 10_000, 'two heartbeats');
      const [first, second] = beats as [Record<string, unknown>, Record<string, unknown>];
      expect(Object.keys(first).sort()).toEqual(
        [
          '_path',
          'arch',
          'engine_version',
          'event',
          'functions',
          'install_id',
          'modules',
          'node_version',
          'os',
          'sequence',
          'triggers',
          'uptime_seconds',
          'workers',
        ].sort(),
      );
      expect(first).toMatchObject({
        event: 'heartbeat',
        sequence: 0,
        modules: ['modules::telemetry::TelemetryModule'],
      });
      expect(second).toMatchObject({ sequence: 1, install_id: first.install_id });
    } finally {
      await engine.stop();
    }
  });

  it('sends nothing with enabled: false, or with DO_NOT_TRACK=1 / SVC_TELEMETRY_DISABLED=1', async () => {
    beats.length = 0;
    const off = await startEngine({ modules: [telemetry({ enabled: false })] });
    const dnt = await startEngine({ modules: [telemetry({})], env: { DO_NOT_TRACK: '1' } });
    const disabled = await startEngine({ modules: [telemetry({})], env: { SVC_TELEMETRY_DISABLED: '1' } });
    await sleep(2500);
    await Promise.all([off.stop(), dnt.stop(), disabled.stop()]);
    expect(beats).toEqual([]);
  });

  it('starts normally when the endpoint cannot be reached', async () => {
    const closedPort = await freePort();
    const engine = await startEngine({
      modules: [telemetry({ endpoint: `http://127.0.0.1:${closedPort}/v1/heartbeat` })],
    });
    await sleep(1500);
    expect(engine.exited).toBe(false);
    await engine.stop();
  });
});
