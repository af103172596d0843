/**
 * The client's side of the transport boundary: what it sends on every open, in which order, and what it keeps
 * back while the connection is down. The transport here only records frames (it stands in for the socket, not
 * for the engine); the engine's behaviour is covered by the e2e tests against the real engine.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createClient, type ClientTransport, type TransportEvents, type WorkerToEngine } from '../src/index.js';

class RecordingTransport implements ClientTransport {
  sent: WorkerToEngine[] = [];
  isOpen = false;
  events!: TransportEvents;
  start(events: TransportEvents): void {
    this.events = events;
  }
  send(message: WorkerToEngine): boolean {
    if (!this.isOpen) return false;
    JSON.stringify(message);
    this.sent.push(message);
    return true;
  }
  open(workerId: string, token: string): void {
    this.isOpen = true;
    this.events.onOpen();
    this.events.onMessage({ type: 'workerregistered', worker_id: workerId, reattach_token: token });
  }
  drop(): void {
    this.isOpen = false;
    this.events.onClose({ code: 1006, reason: '', willReconnect: true });
  }
  async close(): Promise<void> {
    this.isOpen = false;
  }
  take(): WorkerToEngine[] {
    const s = this.sent;
    this.sent = [];
    return s;
  }
}

const W1 = '11111111-1111-4111-8111-111111111111';
const W2 = '22222222-2222-4222-8222-222222222222';
const logger = pino({ level: 'silent' });

function kinds(frames: WorkerToEngine[]): string[] {
  return frames.map((f) => (f.type === 'invokefunction' ? `invoke:${f.function_id}` : f.type));
}

describe('registration replay', () => {
  it('replays types, functions, triggers (same ids), queued frames, then the metadata call, on every open', async () => {
    const t = new RecordingTransport();
    const client = createClient(t, { workerName: 'replay-test', logger });
    // Registered while disconnected: stored, not queued.
    client.registerFunction('r::fn', () => 1);
    client.registerTriggerType({ id: 'r-type' }, { registerTrigger() {}, unregisterTrigger() {} });
    const trig = client.registerTrigger({ type: 'r-type', function_id: 'r::fn', config: { a: 1 } });
    const call = client.trigger({ function_id: 'other::fn', payload: { n: 1 }, timeoutMs: 5000 });
    void client.trigger({ function_id: 'other::fire', payload: 2, action: { type: 'void' } });
    expect(t.sent).toEqual([]);

    t.open(W1, 'tok-1');
    const first = t.take();
    expect(kinds(first)).toEqual([
      'registertriggertype',
      'registerfunction',
      'registertrigger',
      'invoke:other::fn',
      'invoke:other::fire',
      'invoke:engine::workers::register',
    ]);
    const meta = first[5] as Extract<WorkerToEngine, { type: 'invokefunction' }>;
    expect(meta.action).toEqual({ type: 'void' });
    expect(meta.data).toMatchObject({ runtime: 'node', name: 'replay-test', pid: process.pid });
    const invoke = first[3] as Extract<WorkerToEngine, { type: 'invokefunction' }>;
    expect(invoke.timeout_ms).toBe(5000);

    // The caller gets its answer through the same client.
    t.events.onMessage({
      type: 'invocationresult',
      invocation_id: invoke.invocation_id as string,
      function_id: 'other::fn',
      result: 42,
    });
    await expect(call).resolves.toBe(42);

    t.drop();
    t.open(W2, 'tok-2');
    const second = t.take();
    expect(kinds(second)).toEqual([
      'reattach',
      'registertriggertype',
      'registerfunction',
      'registertrigger',
      'invoke:engine::workers::register',
    ]);
    expect(second[0]).toEqual({ type: 'reattach', previous_worker_id: W1, reattach_token: 'tok-1' });
    expect((second[3] as { id: string }).id).toBe(trig.id);
    expect(client.workerId).toBe(W2);
    await client.shutdown();
  });

  it('drops a queued call whose caller already timed out, and keeps unregistrations out of the replay', async () => {
    const t = new RecordingTransport();
    const client = createClient(t, { workerName: 'replay-test', logger });
    const fn = client.registerFunction('gone::fn', () => 1);
    const late = client.trigger({ function_id: 'x::late', timeoutMs: 20 });
    await expect(late).rejects.toMatchObject({ code: 'TIMEOUT', function_id: 'x::late' });
    const kept = client.trigger({ function_id: 'x::kept', timeoutMs: 5000 });
    fn.unregister();
    t.open(W1, 'tok');
    expect(kinds(t.take())).toEqual(['invoke:x::kept', 'invoke:engine::workers::register']);
    await client.shutdown();
    await expect(kept).rejects.toMatchObject({ code: 'client_shutdown' });
  });

  it('refuses a call the engine could not accept, with a reason, instead of hanging', async () => {
    const client = createClient(new RecordingTransport(), { logger });
    await expect(client.trigger({ function_id: '' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
    await expect(client.trigger({ function_id: 'x::y', timeoutMs: 0 })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENTS',
      message: 'INVALID_ARGUMENTS: trigger(): timeoutMs must be a positive number',
    });
    await expect(client.trigger({ function_id: 'x::y', invocationId: 'by-id-1' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENTS',
      message: expect.stringContaining('invocationId must be a UUID') as string,
    });
    await client.shutdown();
  });

  it('refuses an empty or duplicate function id', async () => {
    const client = createClient(new RecordingTransport(), { logger });
    expect(() => client.registerFunction('', () => 1)).toThrow('id is required');
    client.registerFunction('dup::fn', () => 1);
    expect(() => client.registerFunction('dup::fn', () => 1)).toThrow('function id already registered: dup::fn');
    await client.shutdown();
  });
});

describe('trigger-type provider bookkeeping', () => {
  const T1 = '33333333-3333-4333-8333-333333333333';
  const binding = {
    type: 'registertrigger' as const,
    id: T1,
    trigger_type: 'p-type',
    function_id: 'p::fn',
    config: { a: 1 },
  };

  it('activates a repeated delivery once, deactivates on a drop, and re-activates only after the slow unregister', async () => {
    const t = new RecordingTransport();
    const client = createClient(t, { logger });
    const calls: string[] = [];
    let release!: () => void;
    client.registerTriggerType(
      { id: 'p-type' },
      {
        registerTrigger: (b) => void calls.push(`register:${b.id}`),
        unregisterTrigger: async (b) => {
          calls.push(`unregister-start:${b.id}`);
          await new Promise<void>((r) => (release = r));
          calls.push(`unregister-end:${b.id}`);
        },
      },
    );
    t.open(W1, 'tok');
    t.take();
    t.events.onMessage(binding);
    t.events.onMessage(binding);
    await new Promise((r) => setTimeout(r, 10));
    expect(calls).toEqual([`register:${T1}`]);
    const results = t.take().filter((f) => f.type === 'triggerregistrationresult');
    expect(results).toHaveLength(2);
    expect(results.every((r) => !('error' in r))).toBe(true);

    t.drop();
    t.open(W2, 'tok2');
    t.events.onMessage(binding); // the engine re-delivers while the unregister is still running
    await new Promise((r) => setTimeout(r, 10));
    expect(calls).toEqual([`register:${T1}`, `unregister-start:${T1}`]);
    release();
    await new Promise((r) => setTimeout(r, 10));
    expect(calls).toEqual([`register:${T1}`, `unregister-start:${T1}`, `unregister-end:${T1}`, `register:${T1}`]);
    await client.shutdown();
  });

  it('answers trigger_type_not_found for a type it does not provide, and trigger_registration_failed on a throw', async () => {
    const t = new RecordingTransport();
    const client = createClient(t, { logger });
    client.registerTriggerType(
      { id: 'p-type' },
      {
        registerTrigger: () => {
          throw new Error('bad config: a');
        },
        unregisterTrigger: () => undefined,
      },
    );
    t.open(W1, 'tok');
    t.take();
    t.events.onMessage({ ...binding, trigger_type: 'other-type' });
    t.events.onMessage(binding);
    await new Promise((r) => setTimeout(r, 10));
    expect(t.take()).toEqual([
      {
        type: 'triggerregistrationresult',
        id: T1,
        trigger_type: 'other-type',
        function_id: 'p::fn',
        error: { code: 'trigger_type_not_found', message: 'Trigger type not found' },
      },
      {
        type: 'triggerregistrationresult',
        id: T1,
        trigger_type: 'p-type',
        function_id: 'p::fn',
        error: { code: 'trigger_registration_failed', message: 'bad config: a' },
      },
    ]);
    await client.shutdown();
  });
});

describe('executor replies', () => {
  const I1 = '44444444-4444-4444-8444-444444444444';
  const I2 = '55555555-5555-4555-8555-555555555555';

  it('answers function_not_found and function_not_invokable, and never answers an invoke without an id', async () => {
    const t = new RecordingTransport();
    const client = createClient(t, { logger });
    const ran: unknown[] = [];
    client.registerFunction('ext::fn', { url: 'http://127.0.0.1:9/fn' });
    client.registerFunction('local::fn', (p: unknown) => void ran.push(p));
    t.open(W1, 'tok');
    expect(t.take()[0]).toMatchObject({
      type: 'registerfunction',
      id: 'ext::fn',
      invocation: { url: 'http://127.0.0.1:9/fn' },
    });
    t.events.onMessage({ type: 'invokefunction', invocation_id: I1, function_id: 'nope::fn', data: {} });
    t.events.onMessage({ type: 'invokefunction', invocation_id: I2, function_id: 'ext::fn', data: {} });
    t.events.onMessage({ type: 'invokefunction', function_id: 'local::fn', data: { v: 1 } });
    await new Promise((r) => setTimeout(r, 10));
    expect(t.take()).toEqual([
      {
        type: 'invocationresult',
        invocation_id: I1,
        function_id: 'nope::fn',
        error: { code: 'function_not_found', message: 'Function not found' },
      },
      {
        type: 'invocationresult',
        invocation_id: I2,
        function_id: 'ext::fn',
        error: { code: 'function_not_invokable', message: 'Function is HTTP-invoked and cannot be invoked locally' },
      },
    ]);
    expect(ran).toEqual([{ v: 1 }]);
    await client.shutdown();
  });
});

describe('synced()', () => {
  it('resolves at the engine pong that answers its ping, sent after the registrations', async () => {
    const t = new RecordingTransport();
    const client = createClient(t, { logger });
    client.registerFunction('sync::fn', () => 1);
    let done = false;
    const synced = client.synced().then(() => (done = true));
    t.open(W1, 'token-1');
    expect(kinds(t.take())).toEqual(['registerfunction', 'ping', 'invoke:engine::workers::register']);
    await Promise.resolve();
    expect(done).toBe(false);
    t.events.onMessage({ type: 'pong' });
    await synced;
    expect(done).toBe(true);
    await client.shutdown();
  });

  it('asks again on the next connection when the first one is lost before the pong', async () => {
    const t = new RecordingTransport();
    const client = createClient(t, { logger });
    t.open(W1, 'token-1');
    t.take();
    const synced = client.synced();
    expect(kinds(t.take())).toEqual(['ping']);
    t.drop();
    t.open(W2, 'token-2');
    expect(kinds(t.take())).toContain('ping');
    t.events.onMessage({ type: 'pong' });
    await synced;
    await client.shutdown();
  });
});
