/**
 * An engine killed and not yet detected by the others (its heartbeat timeout has not passed): a call routed to it
 * is not lost. NATS answers "no responders" (nothing subscribes to the dead engine's call subject any more), and
 * the calling engine routes the call to another engine that has the function: every call succeeds.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SvcClient } from '@svc/sdk';
import { waitFor, type EngineProcess } from '../harness.js';
import { NATS_URL, natsPort, ourWorker, portOpen, startCluster, waitListedEverywhere } from './cluster-support.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

const natsUp = await portOpen(natsPort(NATS_URL));

describe.skipIf(!natsUp)('a call routed to an engine that died unnoticed', () => {
  let engines: EngineProcess[] = [];
  const clients: SvcClient[] = [];

  beforeAll(async () => {
    engines = await startCluster(3);
    const [a, b, c] = engines.map((e) => e.url) as [string, string, string];
    for (const [label, url] of [
      ['b', b],
      ['c', c],
    ] as const) {
      const w = ourWorker(url, `nr-${label}`);
      w.registerFunction('nr::where', () => ({ on: label }));
      clients.push(w);
    }
    clients.push(ourWorker(a, 'nr-caller'));
    await waitListedEverywhere([a], 'nr::where');
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.shutdown()));
    await Promise.all(engines.map((e) => (e.exited ? Promise.resolve() : e.stop())));
  });

  it('is answered by another engine that has the function', async () => {
    const caller = clients[2]!;
    const seen = new Set<string>();
    // both replicas take calls from A
    await waitFor(
      async () => {
        seen.add((await caller.trigger<{ on: string }>({ function_id: 'nr::where', payload: {} })).on);
        return seen.size === 2;
      },
      15_000,
      'calls on B and on C',
    );
    await engines[1]!.kill();
    // well inside the 2 s heartbeat timeout: A still routes to B, whose call subject nobody listens to any more
    await new Promise((r) => setTimeout(r, 300));
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        caller.trigger<{ on: string }>({ function_id: 'nr::where', payload: {}, timeoutMs: 15_000 }),
      ),
    );
    expect(answers.map((r) => r.on)).toEqual(Array.from({ length: 20 }, () => 'c'));
  });
});
