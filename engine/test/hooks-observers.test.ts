/**
 * Lifecycle observers and registration interceptors over in-memory connections.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { EngineCore } from '../src/core/engine-core.js';
import type { InvocationSettled, InvocationStarted, Registration } from '../src/core/hooks.js';
import { MemoryConnection } from './memory-connection.js';

function setup() {
  const core = new EngineCore({ logger: pino({ level: 'silent' }) });
  const connect = (features: string[] = []) => {
    const conn = new MemoryConnection(features);
    return { conn, worker: core.attach(conn) };
  };
  return { core, connect };
}

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('invocation observers', () => {
  it('see a call start and settle with caller, executor, trace id, duration and outcome', () => {
    const { core, connect } = setup();
    const started: InvocationStarted[] = [];
    const settled: InvocationSettled[] = [];
    core.hooks.observe({
      invocationStarted: (e) => void started.push(e),
      invocationSettled: (e) => void settled.push(e),
    });
    const exec = connect();
    const caller = connect();
    core.receive(exec.worker, { type: 'registerfunction', id: 'f' });
    const id = randomUUID();
    core.receive(caller.worker, {
      type: 'invokefunction',
      invocation_id: id,
      function_id: 'f',
      data: {},
      traceparent: TRACEPARENT,
    });
    expect(started).toEqual([
      {
        invocationId: id,
        functionId: 'f',
        callerWorkerId: caller.worker.id,
        executorWorkerId: exec.worker.id,
        executorWorkerName: exec.worker.name,
        traceId: '0af7651916cd43dd8448eb211c80319c',
        traceparent: TRACEPARENT,
        baggage: undefined,
      },
    ]);
    core.receive(exec.worker, {
      type: 'invocationresult',
      invocation_id: id,
      function_id: 'f',
      error: { code: 'bad', message: 'x' },
    });
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({
      invocationId: id,
      outcome: 'bad',
      executorWorkerId: exec.worker.id,
      error: { code: 'bad', message: 'x' },
    });
    expect(settled[0]!.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('see calls answered before routing (no provider) and calls stopped by a disconnect', () => {
    const { core, connect } = setup();
    const settled: InvocationSettled[] = [];
    core.hooks.observe({ invocationSettled: (e) => settled.push(e) });
    const exec = connect();
    const caller = connect();
    core.receive(caller.worker, { type: 'invokefunction', invocation_id: randomUUID(), function_id: 'nope', data: {} });
    core.receive(exec.worker, { type: 'registerfunction', id: 'f' });
    core.receive(caller.worker, { type: 'invokefunction', invocation_id: randomUUID(), function_id: 'f', data: {} });
    core.detach(exec.worker);
    expect(settled.map((e) => [e.functionId, e.outcome, e.executorWorkerId === undefined])).toEqual([
      ['nope', 'function_not_found', true],
      ['f', 'invocation_stopped', false],
    ]);
  });

  it('a throwing observer is logged and never breaks routing', () => {
    const { core, connect } = setup();
    core.hooks.observe({
      invocationStarted: () => {
        throw new Error('observer bug');
      },
    });
    const exec = connect();
    const caller = connect();
    core.receive(exec.worker, { type: 'registerfunction', id: 'f' });
    const id = randomUUID();
    core.receive(caller.worker, { type: 'invokefunction', invocation_id: id, function_id: 'f', data: {} });
    core.receive(exec.worker, { type: 'invocationresult', invocation_id: id, function_id: 'f', result: 2 });
    expect(caller.conn.of('invocationresult')[0]?.result).toBe(2);
  });
});

describe('registration interceptors', () => {
  it('see every registration kind with the worker that sent it', () => {
    const { core, connect } = setup();
    const seen: string[] = [];
    core.hooks.addInterceptor((r: Registration) => {
      seen.push(`${r.kind}:${r.message.id}:${r.worker.id === w.worker.id}`);
      return undefined;
    });
    const w = connect();
    core.receive(w.worker, { type: 'registerfunction', id: 'f' });
    core.receive(w.worker, { type: 'registertriggertype', id: 'tick' });
    core.receive(w.worker, { type: 'registertrigger', id: 't1', trigger_type: 'tick', function_id: 'f', config: {} });
    expect(seen).toEqual(['function:f:true', 'trigger_type:tick:true', 'trigger:t1:true']);
    expect(core.functions.get('f')).toBeDefined();
  });

  it('refuse a function (error frame), a trigger type (error frame) and a trigger (registration result)', () => {
    const { core, connect } = setup();
    const refusal = { code: 'forbidden', message: 'not allowed' };
    core.hooks.addInterceptor(() => ({ refuse: refusal }));
    const w = connect();
    core.receive(w.worker, { type: 'registerfunction', id: 'f' });
    core.receive(w.worker, { type: 'registertriggertype', id: 'tick' });
    core.receive(w.worker, { type: 'registertrigger', id: 't1', trigger_type: 'tick', function_id: 'f', config: {} });
    expect(w.conn.of('error').map((e) => e.error)).toEqual([refusal, refusal]);
    expect(w.conn.of('triggerregistrationresult')).toEqual([
      { type: 'triggerregistrationresult', id: 't1', trigger_type: 'tick', function_id: 'f', error: refusal },
    ]);
    expect(core.functions.size + core.triggers.types.size + core.triggers.bindings.size).toBe(0);
  });

  it('a claimed function is not routed to the worker; the claim is released on re-registration', () => {
    const { core, connect } = setup();
    const released: string[] = [];
    let claim = true;
    core.hooks.addInterceptor((r) =>
      r.kind === 'function' && claim ? { claim: { release: () => released.push(r.message.id) } } : undefined,
    );
    const w = connect();
    core.receive(w.worker, { type: 'registerfunction', id: 'f' });
    expect(core.functions.get('f')).toBeUndefined();
    claim = false;
    core.receive(w.worker, { type: 'registerfunction', id: 'f' });
    expect(released).toEqual(['f']);
    expect(core.functions.get('f')?.replicas).toHaveLength(1);
  });
});
