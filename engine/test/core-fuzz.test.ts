/**
 * The engine never crashes on any input: arbitrary frames (random JSON shaped like every message type, with
 * random field values) go through the wire codec and, when they decode, into the core from several workers.
 * Nothing may throw, and the books stay consistent (no invocation outlives both of its workers).
 */
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { decodeFrame } from '@svc/sdk';
import { EngineCore } from '../src/core/engine-core.js';
import { MemoryConnection } from './memory-connection.js';

const TYPES = [
  'reattach',
  'registerfunction',
  'unregisterfunction',
  'registertriggertype',
  'unregistertriggertype',
  'registertrigger',
  'unregistertrigger',
  'triggerregistrationresult',
  'invokefunction',
  'invocationresult',
  'registerservice',
  'ping',
  'pong',
  'workerregistered',
  'cancelinvocation',
  'error',
  'bogus',
];
const IDS = ['f', 'g', 'engine::queue::enqueue', 't1', 't2', 'tick', '11111111-1111-4111-8111-111111111111'];

const value = fc.oneof(
  fc.constantFrom(...IDS),
  fc.jsonValue({ maxDepth: 2 }),
  fc.record({ type: fc.constantFrom('void', 'enqueue', 'x'), queue: fc.string() }, { requiredKeys: [] }),
  fc.record({ code: fc.string(), message: fc.string() }),
  fc.uuid(),
);
const frame = fc.record(
  {
    type: fc.constantFrom(...TYPES),
    id: value,
    function_id: value,
    trigger_type: value,
    invocation_id: fc.oneof(fc.uuid(), fc.constant('11111111-1111-4111-8111-111111111111'), value),
    data: value,
    action: value,
    error: value,
    result: value,
    config: value,
    invocation: fc.oneof(value, fc.record({ url: fc.string() })),
    previous_worker_id: value,
    reattach_token: value,
    timeout_ms: fc.oneof(fc.integer({ min: -5, max: 50 }), value),
  },
  { requiredKeys: ['type'] },
);
const input = fc.oneof(
  { weight: 8, arbitrary: frame.map((f) => JSON.stringify(f)) },
  { weight: 1, arbitrary: fc.string() },
);

describe('core under arbitrary input', () => {
  it('never throws, and every invocation belongs to live workers', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(3), input, fc.boolean()), { maxLength: 60 }), (steps) => {
        const core = new EngineCore({ logger: pino({ level: 'silent' }), invocationTimeoutMs: 0 });
        core.hooks.addInterceptor((r) =>
          r.kind === 'function' && r.message.invocation ? { claim: { release: () => undefined } } : undefined,
        );
        const workers = [0, 1, 2, 3].map((i) => core.attach(new MemoryConnection(i % 2 ? ['cancel'] : [])));
        for (const [who, text, disconnect] of steps) {
          const worker = workers[who]!;
          const decoded = decodeFrame(text);
          if (decoded.ok) core.receive(worker, decoded.message, text);
          if (disconnect && text.length % 7 === 0) {
            core.detach(worker);
            workers[who] = core.attach(new MemoryConnection());
          }
        }
        for (const inv of core.invocations.values()) {
          expect(inv.executor.closed).toBe(false);
          if (inv.caller) expect(inv.caller.closed).toBe(false);
        }
        for (const w of [...core.workers.values()]) core.detach(w);
        expect(core.invocations.size).toBe(0);
        expect(core.functions.size).toBe(0);
        expect(core.triggers.bindings.size).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
