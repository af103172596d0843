/**
 * The core over in-memory connections: routing, replicas, results, void, enqueue, timeouts and cancellation.
 */
import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineCore } from '../src/core/engine-core.js';
import type { Worker } from '../src/core/worker.js';
import { MemoryConnection } from './memory-connection.js';

const logger = pino({ level: 'silent' });
let core: EngineCore;

setFlagsFromString('--expose-gc');
/** A full garbage collection (the flag exposes `gc` to contexts made after it is set). */
const collectGarbage = runInNewContext('gc') as () => void;

function connect(features: string[] = []): { conn: MemoryConnection; worker: Worker } {
  const conn = new MemoryConnection(features);
  return { conn, worker: core.attach(conn) };
}

function invoke(worker: Worker, functionId: string, data: unknown = {}, extra: Record<string, unknown> = {}): string {
  const id = randomUUID();
  core.receive(worker, { type: 'invokefunction', invocation_id: id, function_id: functionId, data, ...extra });
  return id;
}

function answer(worker: Worker, invocationId: string, result: unknown): void {
  core.receive(worker, { type: 'invocationresult', invocation_id: invocationId, function_id: 'f', result });
}

afterEach(() => {
  for (const w of [...(core?.workers.values() ?? [])]) core.detach(w);
});

describe('core routing', () => {
  it('greets each connection with a worker id and a reattach token', () => {
    core = new EngineCore({ logger });
    const { conn, worker } = connect();
    expect(conn.sent[0]).toEqual({
      type: 'workerregistered',
      worker_id: worker.id,
      reattach_token: expect.any(String),
    });
  });

  it('routes a sync call to the executor with _caller_worker_id and relays the result under the caller id', () => {
    core = new EngineCore({ logger });
    const exec = connect();
    const caller = connect();
    core.receive(exec.worker, { type: 'registerfunction', id: 'a::b' });
    const id = invoke(caller.worker, 'a::b', { x: 1 }, { metadata: { m: 1 } });
    const [call] = exec.conn.of('invokefunction');
    expect(call).toMatchObject({ invocation_id: id, function_id: 'a::b', metadata: { m: 1 } });
    expect(call!.data).toEqual({ x: 1, _caller_worker_id: caller.worker.id });
    expect(call).not.toHaveProperty('action');
    answer(exec.worker, id, { ok: true });
    expect(caller.conn.of('invocationresult')).toEqual([
      { type: 'invocationresult', invocation_id: id, function_id: 'a::b', result: { ok: true } },
    ]);
    expect(core.invocations.size).toBe(0);
  });

  it('answers function_not_found for an unknown id', () => {
    core = new EngineCore({ logger });
    const caller = connect();
    invoke(caller.worker, 'nope');
    expect(caller.conn.of('invocationresult')[0]?.error?.code).toBe('function_not_found');
  });

  it('ignores a result from a worker that is not the executor', () => {
    core = new EngineCore({ logger });
    const exec = connect();
    const caller = connect();
    const intruder = connect();
    core.receive(exec.worker, { type: 'registerfunction', id: 'f' });
    const id = invoke(caller.worker, 'f');
    answer(intruder.worker, id, 'forged');
    expect(caller.conn.of('invocationresult')).toHaveLength(0);
    answer(exec.worker, id, 'real');
    expect(caller.conn.of('invocationresult')[0]?.result).toBe('real');
  });

  it("lets go of a call's payload once its frame is sent, while the call waits for its answer", async () => {
    core = new EngineCore({ logger });
    const exec = connect();
    const caller = connect();
    core.receive(exec.worker, { type: 'registerfunction', id: 'a::b' });
    let data: { blob: string } | undefined = { blob: 'x'.repeat(1 << 20) };
    const payload = new WeakRef(data);
    const id = invoke(caller.worker, 'a::b', data);
    data = undefined;
    expect(exec.conn.of('invokefunction')[0]!.data).toMatchObject({ blob: expect.any(String) });
    await new Promise((r) => setTimeout(r, 0)); // a WeakRef keeps its target until the current job ends
    collectGarbage();
    expect(payload.deref()).toBeUndefined();
    expect(core.invocations.size).toBe(1);
    answer(exec.worker, id, 'done');
    expect(caller.conn.of('invocationresult')).toMatchObject([{ invocation_id: id, result: 'done' }]);
  });

  it('void: the executor gets a fresh id and its answer is dropped; the caller gets nothing', () => {
    core = new EngineCore({ logger });
    const exec = connect();
    const caller = connect();
    core.receive(exec.worker, { type: 'registerfunction', id: 'f' });
    core.receive(caller.worker, { type: 'invokefunction', function_id: 'f', data: {}, action: { type: 'void' } });
    const [call] = exec.conn.of('invokefunction');
    expect(call?.invocation_id).toMatch(/^[0-9a-f-]{36}$/);
    answer(exec.worker, call!.invocation_id!, 'x');
    expect(caller.conn.of('invocationresult')).toHaveLength(0);
    expect(core.invocations.size).toBe(0);
  });
});

describe('calls in flight per worker (max_in_flight_per_worker)', () => {
  it('answers worker_overloaded past the bound without sending, counts void calls, and takes calls again once one is answered', () => {
    core = new EngineCore({ logger, maxInFlightPerWorker: 3 });
    const exec = connect();
    const caller = connect();
    core.receive(exec.worker, { type: 'registerfunction', id: 'slow' });
    const first = invoke(caller.worker, 'slow');
    invoke(caller.worker, 'slow');
    core.receive(caller.worker, { type: 'invokefunction', function_id: 'slow', data: {}, action: { type: 'void' } });
    // Before, every call was kept until its deadline: a caller flooding a handler that never answers grew the
    // engine by ~0.5 KB per call (2,000,000 calls: 1.1 GB), and a long timeout_ms kept them as long as it said.
    const refused = invoke(caller.worker, 'slow');
    expect(exec.conn.of('invokefunction')).toHaveLength(3);
    const [answerFrame] = caller.conn.of('invocationresult');
    expect(answerFrame).toMatchObject({ invocation_id: refused, error: { code: 'worker_overloaded' } });
    expect((answerFrame!.error as { message: string }).message).toContain(
      `the worker ${exec.worker.id} providing slow has 3 calls in flight (max_in_flight_per_worker)`,
    );
    expect(core.invocations.size).toBe(3);
    answer(exec.worker, first, 'done');
    invoke(caller.worker, 'slow');
    expect(exec.conn.of('invokefunction')).toHaveLength(4);
  });

  it('answers engine_overloaded past max_in_flight in all, whichever workers the calls went to', () => {
    core = new EngineCore({ logger, maxInFlight: 2 });
    const a = connect();
    const b = connect();
    const caller = connect();
    core.receive(a.worker, { type: 'registerfunction', id: 'on-a' });
    core.receive(b.worker, { type: 'registerfunction', id: 'on-b' });
    const first = invoke(caller.worker, 'on-a');
    invoke(caller.worker, 'on-b');
    // Before, only each worker's own bound applied: a client opening many executor connections multiplied it.
    const refused = invoke(caller.worker, 'on-b');
    expect(b.conn.of('invokefunction')).toHaveLength(1);
    const [answerFrame] = caller.conn.of('invocationresult');
    expect(answerFrame).toMatchObject({ invocation_id: refused, error: { code: 'engine_overloaded' } });
    expect((answerFrame!.error as { message: string }).message).toContain(
      'the engine has 2 calls in flight (max_in_flight); this call to on-b was not sent',
    );
    answer(a.worker, first, 'done');
    invoke(caller.worker, 'on-b');
    expect(b.conn.of('invokefunction')).toHaveLength(2);
  });

  it('answers caller_overloaded to a caller past max_in_flight_per_caller while other callers still get through', () => {
    core = new EngineCore({ logger, maxInFlightPerCaller: 2 });
    const exec = connect();
    const flooder = connect();
    const other = connect();
    core.receive(exec.worker, { type: 'registerfunction', id: 'slow' });
    const first = invoke(flooder.worker, 'slow');
    invoke(flooder.worker, 'slow');
    // fire-and-forget calls are not waited on: they do not count against the caller
    core.receive(flooder.worker, { type: 'invokefunction', function_id: 'slow', data: {}, action: { type: 'void' } });
    expect(exec.conn.of('invokefunction')).toHaveLength(3);
    const refused = invoke(flooder.worker, 'slow');
    expect(exec.conn.of('invokefunction')).toHaveLength(3);
    const [answerFrame] = flooder.conn.of('invocationresult');
    expect(answerFrame).toMatchObject({ invocation_id: refused, error: { code: 'caller_overloaded' } });
    expect((answerFrame!.error as { message: string }).message).toContain(
      'this connection already waits on 2 calls (max_in_flight_per_caller); this call to slow was not sent',
    );
    // the bound is each caller's own: another connection's calls still go out
    invoke(other.worker, 'slow');
    invoke(other.worker, 'slow');
    expect(exec.conn.of('invokefunction')).toHaveLength(5);
    // an answer gives the caller its share back
    answer(exec.worker, first, 'done');
    invoke(flooder.worker, 'slow');
    expect(exec.conn.of('invokefunction')).toHaveLength(6);
  });

  it('sends to another replica while one is full', () => {
    core = new EngineCore({ logger, maxInFlightPerWorker: 1 });
    const a = connect();
    const b = connect();
    const caller = connect();
    core.receive(a.worker, { type: 'registerfunction', id: 'f' });
    core.receive(b.worker, { type: 'registerfunction', id: 'f' });
    invoke(caller.worker, 'f');
    invoke(caller.worker, 'f');
    expect(a.conn.of('invokefunction').length + b.conn.of('invokefunction').length).toBe(2);
    invoke(caller.worker, 'f');
    expect(caller.conn.of('invocationresult')).toHaveLength(1);
  });
});

describe('replicas', () => {
  /** A fresh core where workers `a` and `b` both provide `f`, and a third worker to call it. */
  function twoReplicas() {
    core = new EngineCore({ logger });
    const a = connect();
    const b = connect();
    const caller = connect();
    core.receive(a.worker, { type: 'registerfunction', id: 'f' });
    core.receive(b.worker, { type: 'registerfunction', id: 'f' });
    return { a, b, caller };
  }

  it('spreads calls over replicas (least in-flight, round-robin among equals)', () => {
    const { a, b, caller } = twoReplicas();
    for (let i = 0; i < 4; i++) {
      invoke(caller.worker, 'f');
      const last = [...a.conn.of('invokefunction'), ...b.conn.of('invokefunction')];
      expect(last).toHaveLength(i + 1);
    }
    expect(a.conn.of('invokefunction')).toHaveLength(2);
    expect(b.conn.of('invokefunction')).toHaveLength(2);
    // sequential calls (answered at once) alternate too
    for (const call of [...a.conn.of('invokefunction'), ...b.conn.of('invokefunction')]) {
      const owner = a.conn.of('invokefunction').includes(call) ? a : b;
      answer(owner.worker, call.invocation_id!, 1);
    }
    for (let i = 0; i < 4; i++) {
      const id = invoke(caller.worker, 'f');
      const owner = a.conn.of('invokefunction').some((c) => c.invocation_id === id) ? a : b;
      answer(owner.worker, id, 1);
    }
    expect(a.conn.of('invokefunction')).toHaveLength(4);
    expect(b.conn.of('invokefunction')).toHaveLength(4);
  });

  it('prefers the replica with fewer calls in flight', () => {
    const { a, b, caller } = twoReplicas();
    invoke(caller.worker, 'f'); // → a (busy from now on)
    const first = b.conn.of('invokefunction')[0];
    if (first) answer(b.worker, first.invocation_id!, 1); // whichever got it, free b
    for (let i = 0; i < 3; i++) {
      const id = invoke(caller.worker, 'f');
      const onB = b.conn.of('invokefunction').some((c) => c.invocation_id === id);
      if (onB) answer(b.worker, id, 1);
    }
    expect(a.conn.of('invokefunction')).toHaveLength(1);
  });

  it('unregisterfunction removes only the sender; a disconnect takes a replica out of rotation', () => {
    const { a, b, caller } = twoReplicas();
    core.receive(a.worker, { type: 'unregisterfunction', id: 'f' });
    for (let i = 0; i < 3; i++) invoke(caller.worker, 'f');
    expect(a.conn.of('invokefunction')).toHaveLength(0);
    expect(b.conn.of('invokefunction')).toHaveLength(3);
    core.detach(b.worker);
    invoke(caller.worker, 'f');
    expect(caller.conn.of('invocationresult').at(-1)?.error?.code).toBe('function_not_found');
  });
  it('passes over a replica whose connection stopped taking frames before the core heard it closed', () => {
    const { a, b, caller } = twoReplicas();
    a.conn.closed = true; // its peer is gone; the core has not detached it yet
    for (let i = 0; i < 4; i++) invoke(caller.worker, 'f');
    expect(b.conn.of('invokefunction')).toHaveLength(4);
    expect(caller.conn.of('invocationresult')).toHaveLength(0);
    // with no replica open, the call fails as before: nothing takes it
    b.conn.closed = true;
    invoke(caller.worker, 'f');
    expect(caller.conn.of('invocationresult').at(-1)?.error?.code).toBe('channel_send_failed');
  });
});

describe('cancellation', () => {
  it('an executor disconnect stops every waiting call at once', () => {
    core = new EngineCore({ logger });
    const exec = connect();
    const caller = connect();
    core.receive(exec.worker, { type: 'registerfunction', id: 'f' });
    const ids = [invoke(caller.worker, 'f'), invoke(caller.worker, 'f'), invoke(caller.worker, 'f')];
    core.detach(exec.worker);
    const results = caller.conn.of('invocationresult');
    expect(results.map((r) => r.invocation_id).sort()).toEqual([...ids].sort());
    expect(results.every((r) => r.error?.code === 'invocation_stopped')).toBe(true);
    expect(core.invocations.size).toBe(0);
  });

  it('a caller disconnect sends cancelinvocation only to executors that announced the cancel feature', () => {
    core = new EngineCore({ logger });
    const modern = connect(['cancel']);
    const legacy = connect();
    const caller = connect();
    core.receive(modern.worker, { type: 'registerfunction', id: 'm' });
    core.receive(legacy.worker, { type: 'registerfunction', id: 'l' });
    const id = invoke(caller.worker, 'm');
    invoke(caller.worker, 'l');
    core.detach(caller.worker);
    expect(modern.conn.of('cancelinvocation')).toEqual([
      { type: 'cancelinvocation', invocation_id: id, reason: 'caller_disconnected' },
    ]);
    expect(legacy.conn.sent.some((m) => (m.type as string) === 'cancelinvocation')).toBe(false);
    expect(core.invocations.size).toBe(0);
  });

  it('times out with invocation_timeout, cancels the executor and drops the late result', async () => {
    core = new EngineCore({ logger, invocationTimeoutMs: 40 });
    const exec = connect(['cancel']);
    const caller = connect();
    core.receive(exec.worker, { type: 'registerfunction', id: 'f' });
    const id = invoke(caller.worker, 'f');
    await new Promise((r) => setTimeout(r, 80));
    expect(caller.conn.of('invocationresult')[0]?.error?.code).toBe('invocation_timeout');
    expect(exec.conn.of('cancelinvocation')[0]).toMatchObject({ invocation_id: id, reason: 'timeout' });
    answer(exec.worker, id, 'late');
    expect(caller.conn.of('invocationresult')).toHaveLength(1);
  });

  it('honours timeout_ms on the call', async () => {
    core = new EngineCore({ logger, invocationTimeoutMs: 60_000 });
    const exec = connect();
    const caller = connect();
    core.receive(exec.worker, { type: 'registerfunction', id: 'f' });
    invoke(caller.worker, 'f', {}, { timeout_ms: 30 });
    await new Promise((r) => setTimeout(r, 70));
    expect(caller.conn.of('invocationresult')[0]?.error?.code).toBe('invocation_timeout');
  });
});

describe('actions', () => {
  it("answers action_unsupported when no module handles the call's action", () => {
    core = new EngineCore({ logger });
    const caller = connect();
    invoke(caller.worker, 'f', {}, { action: { type: 'enqueue', queue: 'q' } });
    expect(caller.conn.of('invocationresult')[0]?.error?.code).toBe('action_unsupported');
  });
});

describe('svc extensions', () => {
  it('a call marked fired_by (a provider delivering an event) still names its caller, as docs/protocol.md says', () => {
    core = new EngineCore({ logger });
    const exec = connect();
    const provider = connect();
    core.receive(exec.worker, { type: 'registerfunction', id: 'f' });
    invoke(provider.worker, 'f', { event: 1 }, { fired_by: 'binding-1' });
    expect(exec.conn.of('invokefunction')[0]?.data).toEqual({ event: 1, _caller_worker_id: provider.worker.id });
  });

  it('a caller cancelling its own call ends it and tells a cancel-aware executor; others cannot cancel it', () => {
    core = new EngineCore({ logger });
    const exec = connect(['cancel']);
    const caller = connect();
    const stranger = connect();
    core.receive(exec.worker, { type: 'registerfunction', id: 'f' });
    const id = invoke(caller.worker, 'f');
    core.receive(stranger.worker, { type: 'cancelinvocation', invocation_id: id, reason: 'cancelled' });
    expect(core.invocations.size).toBe(1);
    core.receive(caller.worker, { type: 'cancelinvocation', invocation_id: id, reason: 'cancelled' });
    expect(core.invocations.size).toBe(0);
    expect(exec.conn.of('cancelinvocation')).toEqual([
      { type: 'cancelinvocation', invocation_id: id, reason: 'cancelled' },
    ]);
    answer(exec.worker, id, 'late');
    expect(caller.conn.of('invocationresult')).toHaveLength(0);
  });
});
