/**
 * A network partition between two bridged engines: every packet to and from the remote engine's port is dropped
 * (iptables on loopback: a black hole, no FIN or RST), then the network heals. While it is cut, forwarded calls end
 * within their timeout (`bridge_timeout`, outcome unknown, or `bridge_unavailable` once the connection is declared
 * dead), never hang; after the heal, calls succeed again within seconds. Needs root and iptables; skipped with the
 * reason otherwise.
 */
import { spawnSync } from 'node:child_process';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvocationError, registerWorker, type SvcClient } from '@svc/sdk';
import { freePort, startEngine, waitFor, type EngineProcess } from '../harness.js';

const iptables = (...args: string[]) => spawnSync('iptables', args, { encoding: 'utf8' });
const canPartition =
  process.getuid?.() === 0 && spawnSync('iptables', ['-L', 'INPUT', '-n'], { encoding: 'utf8' }).status === 0;

let a: EngineProcess;
let b: EngineProcess;
let onA: SvcClient;
let onB: SvcClient;
let port = 0;
const rules = () => [
  ['INPUT', '-p', 'tcp', '--dport', String(port), '-j', 'DROP'],
  ['INPUT', '-p', 'tcp', '--sport', String(port), '-j', 'DROP'],
];
let cut = false;

function partition(): void {
  // Whatever happens to this test, the rules must not outlive it (another test may get the port later).
  process.once('exit', heal);
  for (const rule of rules()) expect(iptables('-I', ...rule).status).toBe(0);
  cut = true;
}

function heal(): void {
  if (!cut) return;
  for (const rule of rules()) iptables('-D', ...rule);
  cut = false;
}

async function outcome(function_id: string): Promise<string> {
  try {
    await onA.trigger({ function_id, payload: { x: 1 }, timeoutMs: 20_000 });
    return 'ok';
  } catch (err) {
    return err instanceof InvocationError ? err.code : String(err);
  }
}

describe.skipIf(!canPartition)('bridge partition (needs root and iptables)', () => {
  beforeAll(async () => {
    port = await freePort();
    b = await startEngine({ port, readyTimeoutMs: 60_000 });
    a = await startEngine({
      readyTimeoutMs: 60_000,
      modules: [
        {
          class: 'modules::bridge_client::BridgeClientModule',
          config: {
            url: b.url,
            service_id: 'engine-a',
            forward: [{ local_function: 'b::echo', remote_function: 'b::echo', timeout_ms: 800 }],
          },
        },
      ],
    });
    const silent = pino({ level: 'silent' });
    onB = registerWorker(b.url, { workerName: 'user-b', logger: silent, reconnectionConfig: { maxDelayMs: 500 } });
    onB.registerFunction('b::echo', (p: unknown) => p);
    onA = registerWorker(a.url, { workerName: 'user-a', logger: silent });
    await Promise.all([onA.ready(), onB.ready()]);
    await waitFor(async () => (await outcome('b::echo')) === 'ok', 15_000, 'the bridge');
  }, 180_000);

  afterAll(async () => {
    heal();
    await Promise.all([onA?.shutdown(), onB?.shutdown()]);
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('calls end within their timeout while the link is cut, and succeed again soon after it heals', async () => {
    partition();
    try {
      const started = Date.now();
      const codes: string[] = [];
      while (Date.now() - started < 4000) codes.push(await outcome('b::echo'));
      expect(codes.length).toBeGreaterThan(0);
      // Never a hang (each call ended: the loop went on), never a false success.
      expect(codes.filter((c) => c !== 'bridge_timeout' && c !== 'bridge_unavailable')).toEqual([]);
    } finally {
      heal();
    }
    await waitFor(async () => (await outcome('b::echo')) === 'ok', 10_000, 'calls to succeed after the heal');
    expect(await onA.trigger({ function_id: 'b::echo', payload: { after: 'heal' } })).toMatchObject({ after: 'heal' });
  }, 60_000);
});
