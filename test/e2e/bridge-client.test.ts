/**
 * Two real engines bridged both ways by `modules::bridge_client::BridgeClientModule` (at test scale): engine A exposes
 * a function on B and forwards calls to B; engine B does the same towards A. Calls carry trace context and metadata, a
 * slow remote ends in `bridge_timeout`, an A → B → A loop is stopped by the hop limit, and when B is killed, calls fail
 * at once with `bridge_unavailable` and resume once B is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { InvocationError, registerWorker, type HandlerContext, type SvcClient } from '@svc/sdk';
import { freePort, startEngine, waitFor, type EngineProcess } from '../harness.js';

const BRIDGE = 'modules::bridge_client::BridgeClientModule';
const MAX_HOPS = 8;
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

let a: EngineProcess;
let b: EngineProcess;
let onA: SvcClient;
let onB: SvcClient;
const relayed: string[] = [];
const seen: { traceparent?: string; metadata?: unknown }[] = [];

function client(url: string, name: string): Promise<SvcClient> {
  const c = registerWorker(url, {
    workerName: name,
    logger: pino({ level: 'silent' }),
    reconnectionConfig: { initialDelayMs: 100, maxDelayMs: 500 },
  });
  return c.ready().then(() => c);
}

/** The error code a call ends with (or 'ok'). */
async function outcome(c: SvcClient, function_id: string, payload: unknown = {}, metadata?: unknown): Promise<string> {
  try {
    await c.trigger({ function_id, payload, metadata, timeoutMs: 15_000 });
    return 'ok';
  } catch (err) {
    return err instanceof InvocationError ? err.code : String(err);
  }
}

function registerOnB(c: SvcClient): void {
  c.registerFunction('b::add', (p: { x: number; y: number }, ctx: HandlerContext) => {
    seen.push({ traceparent: ctx.traceparent, metadata: ctx.metadata });
    return { sum: p.x + p.y, engine: 'b' };
  });
  c.registerFunction('b::slow', () => new Promise((r) => setTimeout(() => r('late'), 3000)));
  // A user function in the middle of a loop: it calls onward with the context, so the hop count travels along.
  c.registerFunction('loop::relay', (p: unknown, ctx: HandlerContext) => {
    relayed.push('b');
    return ctx.trigger({ function_id: 'loop::back', payload: p });
  });
}

beforeAll(async () => {
  const [portA, portB] = await Promise.all([freePort(), freePort()]);
  const urlA = `ws://127.0.0.1:${portA}`;
  const urlB = `ws://127.0.0.1:${portB}`;
  const bridgeOfA = {
    class: BRIDGE,
    config: {
      url: urlB,
      service_id: 'engine-a',
      service_name: 'engine A',
      expose: [{ local_function: 'a::greet' }, { local_function: 'loop::start', remote_function: 'loop::back' }],
      forward: [
        { local_function: 'b::add', remote_function: 'b::add' },
        { local_function: 'b::slow', remote_function: 'b::slow', timeout_ms: 300 },
        { local_function: 'loop::start', remote_function: 'loop::relay' },
      ],
    },
  };
  const bridgeOfB = {
    class: BRIDGE,
    config: {
      url: urlA,
      service_id: 'engine-b',
      expose: [{ local_function: 'b::add', remote_function: 'b::add_from_b' }],
      forward: [{ local_function: 'a::hello', remote_function: 'a::greet', timeout_ms: 2000 }],
    },
  };
  [a, b] = await Promise.all([
    startEngine({ port: portA, modules: [bridgeOfA], readyTimeoutMs: 60_000 }),
    startEngine({ port: portB, modules: [bridgeOfB], readyTimeoutMs: 60_000 }),
  ]);
  [onA, onB] = await Promise.all([client(a.url, 'user-on-a'), client(b.url, 'user-on-b')]);
  onA.registerFunction('a::greet', (p: { name: string }) => ({ hello: p.name, engine: 'a' }));
  registerOnB(onB);
  // Both bridges are up once a call crosses each way.
  await waitFor(async () => (await outcome(onA, 'b::add', { x: 0, y: 0 })) === 'ok', 15_000, 'bridge A → B');
  await waitFor(async () => (await outcome(onB, 'a::hello', { name: 'x' })) === 'ok', 15_000, 'bridge B → A');
}, 180_000);

afterAll(async () => {
  await Promise.all([onA?.shutdown(), onB?.shutdown()]);
  await Promise.all([a?.stop(), b?.stop()]);
});

describe('bridge client', () => {
  it('forwards a call to the remote engine with its trace context and metadata', async () => {
    seen.length = 0;
    const traceparent = `00-${TRACE_ID}-00f067aa0ba902b7-01`;
    const result = await onA.trigger({
      function_id: 'b::add',
      payload: { x: 2, y: 3 },
      metadata: { order: 7 },
      traceparent,
    });
    expect(result).toEqual({ sum: 5, engine: 'b' });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.metadata).toEqual({ order: 7 });
    // Same trace, a new span for every hop.
    expect(seen[0]?.traceparent?.split('-')[1]).toBe(TRACE_ID);
    expect(seen[0]?.traceparent).not.toBe(traceparent);
  });

  it('exposes local functions on the remote engine, in both directions', async () => {
    expect(await onB.trigger({ function_id: 'a::greet', payload: { name: 'bo' } })).toEqual({
      hello: 'bo',
      engine: 'a',
    });
    expect(await onB.trigger({ function_id: 'a::hello', payload: { name: 'cy' } })).toEqual({
      hello: 'cy',
      engine: 'a',
    });
    expect(await onA.trigger({ function_id: 'b::add_from_b', payload: { x: 1, y: 1 } })).toEqual({
      sum: 2,
      engine: 'b',
    });
  });

  it('calls any remote function with bridge.invoke, and passes the remote error through', async () => {
    expect(
      await onA.trigger({ function_id: 'bridge.invoke', payload: { function_id: 'b::add', data: { x: 4, y: 4 } } }),
    ).toEqual({ sum: 8, engine: 'b' });
    expect(await outcome(onA, 'bridge.invoke', { function_id: 'b::missing', data: {} })).toBe('function_not_found');
    expect(await outcome(onA, 'bridge.invoke', { data: {} })).toBe('invalid_input');
  });

  it('a remote call that outlives timeout_ms ends with bridge_timeout', async () => {
    const error = await onA.trigger({ function_id: 'b::slow', payload: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvocationError);
    expect((error as InvocationError).code).toBe('bridge_timeout');
    expect((error as InvocationError).message).toContain('outcome is unknown');
  });

  it('stops an A → B → A loop at the hop limit', async () => {
    relayed.length = 0;
    const code = await outcome(onA, 'loop::start', { n: 1 });
    expect(code).toBe('bridge_hop_limit');
    // Each round trip crosses two bridges; the relay on B ran a bounded number of times.
    expect(relayed.length).toBeGreaterThan(0);
    expect(relayed.length).toBeLessThanOrEqual(MAX_HOPS / 2);
  });

  it('fails fast while the remote engine is down, and resumes once it is back', async () => {
    b.proc.kill('SIGKILL');
    await b.exit;
    const down = { sent: 'while B was down' };
    // A call A sent before it saw B's socket close ends with that (or at worst with its 5 s forward timeout);
    // from then on every call fails at once.
    let last = '';
    await waitFor(
      async () => (last = await outcome(onA, 'b::add', { x: 1, y: 1 }, down)) === 'bridge_unavailable',
      15_000,
      'bridge_unavailable',
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; the last call ended with ${last}`);
    });
    const codes = await Promise.all(Array.from({ length: 20 }, () => outcome(onA, 'b::add', { x: 1, y: 1 }, down)));
    expect(new Set(codes)).toEqual(new Set(['bridge_unavailable']));
    seen.length = 0;
    b = await b.restart();
    await waitFor(async () => (await outcome(onA, 'b::add', { x: 1, y: 2 })) === 'ok', 15_000, 'the bridge to recover');
    expect(await onA.trigger({ function_id: 'b::add', payload: { x: 20, y: 22 } })).toEqual({ sum: 42, engine: 'b' });
    // Nothing sent while B was down ran after it came back: B only saw the calls made after recovery.
    expect(seen.filter((s) => JSON.stringify(s.metadata) === JSON.stringify(down))).toEqual([]);
    expect(seen.length).toBeGreaterThan(0);
    // B's own bridge to A is back too.
    await waitFor(async () => (await outcome(onB, 'a::hello', { name: 'z' })) === 'ok', 15_000, 'bridge B → A');
  }, 60_000);
});

describe('bridge client config', () => {
  it('a bridge URL that is not ws:// stops start-up, naming the entry', async () => {
    const error = await startEngine({
      modules: [{ class: BRIDGE, config: { url: 'http://127.0.0.1:1', service_id: 'x' } }],
    }).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(`modules[0] (${BRIDGE})`);
    expect((error as Error).message).toContain('must start with ws:// or wss://');
  });
});
