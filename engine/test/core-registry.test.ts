/**
 * The core over in-memory connections: trigger-type providers and pending bindings, refusals, idempotent replays,
 * reattach, HTTP-invoked registrations and topology events.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { EngineCore } from '../src/core/engine-core.js';
import type { TopologyEvent } from '../src/core/topology.js';
import { refuseUnclaimedHttpFunctions } from '../src/modules/http-functions/registration.js';
import type { Worker } from '../src/core/worker.js';
import { MemoryConnection } from './memory-connection.js';

const logger = pino({ level: 'silent' });

function setup(): { core: EngineCore; connect: () => { conn: MemoryConnection; worker: Worker } } {
  const core = new EngineCore({ logger });
  return {
    core,
    connect: () => {
      const conn = new MemoryConnection();
      return { conn, worker: core.attach(conn) };
    },
  };
}

const bind = (id: string, extra: Record<string, unknown> = {}) =>
  ({ type: 'registertrigger', id, trigger_type: 'tick', function_id: 'f', config: { every: 1 }, ...extra }) as const;

describe('trigger-type providers', () => {
  it('parks a binding until a provider registers its type, then delivers it to every provider', () => {
    const { core, connect } = setup();
    const owner = connect();
    core.receive(owner.worker, bind('t1', { metadata: { m: 1 } }));
    const p1 = connect();
    core.receive(p1.worker, { type: 'registertriggertype', id: 'tick', description: 'ticks' });
    expect(p1.conn.of('registertrigger')).toEqual([
      {
        type: 'registertrigger',
        id: 't1',
        trigger_type: 'tick',
        function_id: 'f',
        config: { every: 1 },
        metadata: { m: 1 },
      },
    ]);
    const p2 = connect();
    core.receive(p2.worker, { type: 'registertriggertype', id: 'tick', description: 'ticks' });
    expect(p2.conn.of('registertrigger')).toHaveLength(1);
    core.receive(owner.worker, bind('t2'));
    expect(p1.conn.of('registertrigger')).toHaveLength(2);
    expect(p2.conn.of('registertrigger')).toHaveLength(2);
  });

  it('a provider re-registering its type gets no duplicates; a replay of the same binding is idempotent', () => {
    const { core, connect } = setup();
    const p = connect();
    const owner = connect();
    core.receive(p.worker, { type: 'registertriggertype', id: 'tick' });
    core.receive(owner.worker, bind('t1'));
    core.receive(p.worker, { type: 'registertriggertype', id: 'tick' });
    core.receive(owner.worker, bind('t1'));
    expect(p.conn.of('registertrigger')).toHaveLength(1);
    // the owner reconnects (new connection) and replays the same id before the old one is noticed gone
    const again = connect();
    core.receive(again.worker, bind('t1'));
    core.detach(owner.worker);
    expect(p.conn.of('registertrigger')).toHaveLength(1);
    expect(p.conn.of('unregistertrigger')).toHaveLength(0);
    expect(core.triggers.bindings.get('t1')?.owner).toBe(again.worker);
  });

  it('forwards a provider refusal to the binding owner with the stored type and function', () => {
    const { core, connect } = setup();
    const p = connect();
    const owner = connect();
    const stranger = connect();
    core.receive(p.worker, { type: 'registertriggertype', id: 'tick' });
    core.receive(owner.worker, bind('t1'));
    const refusal = {
      type: 'triggerregistrationresult',
      id: 't1',
      trigger_type: 'tick',
      function_id: 'f',
      error: { code: 'trigger_registration_failed', message: 'bad config' },
    } as const;
    core.receive(stranger.worker, refusal); // not a provider of the type: ignored
    expect(owner.conn.of('triggerregistrationresult')).toHaveLength(0);
    core.receive(p.worker, refusal);
    expect(owner.conn.of('triggerregistrationresult')).toEqual([refusal]);
  });

  it('tells providers when a binding goes (unregister or owner disconnect); a provider leaving parks bindings', () => {
    const { core, connect } = setup();
    const p = connect();
    const owner = connect();
    core.receive(p.worker, { type: 'registertriggertype', id: 'tick' });
    core.receive(owner.worker, bind('t1'));
    core.receive(owner.worker, bind('t2'));
    core.receive(owner.worker, { type: 'unregistertrigger', id: 't1' });
    expect(p.conn.of('unregistertrigger')).toEqual([{ type: 'unregistertrigger', id: 't1', trigger_type: 'tick' }]);
    core.detach(p.worker);
    expect(core.triggers.types.has('tick')).toBe(false);
    expect(core.triggers.bindings.has('t2')).toBe(true);
    const p2 = connect();
    core.receive(p2.worker, { type: 'registertriggertype', id: 'tick' });
    expect(p2.conn.of('registertrigger').map((m) => m.id)).toEqual(['t2']);
    core.detach(owner.worker);
    expect(p2.conn.of('unregistertrigger').map((m) => m.id)).toEqual(['t2']);
  });
});

describe('reattach', () => {
  it('evicts the previous connection only with the right token', () => {
    const { core, connect } = setup();
    const old = connect();
    core.receive(old.worker, { type: 'registerfunction', id: 'f' });
    const fresh = connect();
    core.receive(fresh.worker, { type: 'reattach', previous_worker_id: old.worker.id, reattach_token: 'wrong' });
    expect(old.conn.closed).toBe(false);
    expect(core.functions.get('f')).toBeDefined();
    core.receive(fresh.worker, {
      type: 'reattach',
      previous_worker_id: old.worker.id,
      reattach_token: old.worker.reattachToken,
    });
    expect(old.conn.closed).toBe(true);
    expect(core.workers.has(old.worker.id)).toBe(false);
    expect(core.functions.get('f')).toBeUndefined();
  });
});

describe('HTTP-invoked functions', () => {
  const reg = { type: 'registerfunction', id: 'ext::fn', invocation: { url: 'https://example.test/fn' } } as const;

  it('are refused with an error frame when no HTTP-functions module is loaded', () => {
    const { core, connect } = setup();
    core.hooks.addInterceptor(refuseUnclaimedHttpFunctions);
    const w = connect();
    core.receive(w.worker, reg);
    expect(w.conn.of('error')[0]?.error.code).toBe('http_functions_unavailable');
    expect(core.functions.get('ext::fn')).toBeUndefined();
  });

  it('go to the registrar, and are released on unregister and on disconnect', () => {
    const { core, connect } = setup();
    const released: string[] = [];
    core.hooks.addInterceptor((r) =>
      r.kind === 'function' && r.message.invocation
        ? { claim: { release: () => released.push(`${r.message.id}@${r.worker.id}`) } }
        : undefined,
    );
    const w = connect();
    core.receive(w.worker, reg);
    core.receive(w.worker, { type: 'unregisterfunction', id: 'ext::fn' });
    expect(released).toEqual([`ext::fn@${w.worker.id}`]);
    core.receive(w.worker, reg);
    core.detach(w.worker);
    expect(released).toHaveLength(2);
  });

  it('surface a registrar refusal to the worker', () => {
    const { core, connect } = setup();
    core.hooks.addInterceptor(() => ({
      refuse: { code: 'http_functions_unavailable', message: 'url not in the allowlist' },
    }));
    const w = connect();
    core.receive(w.worker, reg);
    expect(w.conn.of('error')[0]?.error.message).toContain('url not in the allowlist');
  });
});

describe('topology events', () => {
  it('reports connects, disconnects, metadata and function changes', () => {
    const { core, connect } = setup();
    const events: TopologyEvent[] = [];
    core.hooks.observe({ topology: (e) => events.push(e) });
    const w = connect();
    core.receive(w.worker, { type: 'registerfunction', id: 'f' });
    core.setWorkerMetadata(w.worker.id, { name: 'xy', pid: 7, runtime: 'node' });
    expect(core.workers.get(w.worker.id)?.metadata).toMatchObject({ name: 'xy', pid: 7 });
    core.detach(w.worker);
    expect(events.map((e) => (e.kind === 'worker' ? e.event : e.kind))).toEqual([
      'worker_connected',
      'functions',
      'worker_metadata_updated',
      'functions',
      'worker_disconnected',
    ]);
  });

  it('answers a JSON ping with pong', () => {
    const { core, connect } = setup();
    const w = connect();
    core.receive(w.worker, { type: 'ping' });
    expect(w.conn.of('pong')).toHaveLength(1);
  });
});
