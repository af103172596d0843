/**
 * The function registry: replicas joining and leaving one id, the description of the latest registration, and
 * schemas coming back as they were registered.
 */
import { describe, expect, it } from 'vitest';
import { FunctionRegistry } from '../src/core/function-registry.js';
import { Worker } from '../src/core/worker.js';
import { MemoryConnection } from './memory-connection.js';

const worker = () => new Worker(new MemoryConnection());

describe('function registry', () => {
  it('keeps one replica per worker and describes the function by the latest registration', () => {
    const registry = new FunctionRegistry();
    const [a, b, c] = [worker(), worker(), worker()];
    expect(registry.register('f', a, { description: 'from a' })).toBe(true);
    expect(registry.register('f', b, { description: 'from b', metadata: { team: 'b' } })).toBe(false);
    expect(registry.register('f', c, { description: 'from c' })).toBe(false);
    const entry = registry.get('f')!;
    expect(entry.replicas.map((r) => r.worker)).toEqual([a, b, c]);
    expect(entry.replicaCount).toBe(3);
    expect(entry.primary.description).toBe('from c');

    // re-registering refreshes the worker's own replica, without adding one
    expect(registry.register('f', a, { description: 'a again' })).toBe(false);
    expect(registry.get('f')!.replicas.find((r) => r.worker === a)?.description).toBe('a again');
    expect(registry.get('f')!.replicaCount).toBe(3);

    expect(registry.unregister('f', c)).toBe(false);
    expect(registry.get('f')!.primary.worker).toBe(b);
    expect(registry.get('f')!.primary.metadata).toEqual({ team: 'b' });
    expect(registry.unregister('f', a)).toBe(false);
    expect(registry.get('f')!.replicas.map((r) => r.worker)).toEqual([b]);
    expect(registry.unregister('f', a)).toBe(false);
    expect(registry.unregister('f', b)).toBe(true);
    expect(registry.get('f')).toBeUndefined();
    expect(registry.size).toBe(0);
    expect([a, b, c].map((w) => w.functions.size)).toEqual([0, 0, 0]);
  });

  it('spreads picks over the replicas by invocations in flight, round-robin among equals', () => {
    const registry = new FunctionRegistry();
    const [a, b] = [worker(), worker()];
    registry.register('f', a, {});
    const single = registry.get('f')!.pick();
    expect([single.worker, registry.get('f')!.pick().worker]).toEqual([a, a]);
    registry.register('f', b, {});
    const entry = registry.get('f')!;
    expect([entry.pick(), entry.pick(), entry.pick()].map((r) => r.worker)).toEqual([a, b, a]);
    const busy = entry.replicas.find((r) => r.worker === b)!;
    busy.inFlight = 5;
    expect([entry.pick(), entry.pick()].map((r) => r.worker)).toEqual([a, a]);
    // the replica that was the entry alone keeps its identity (and in-flight count) through the change
    expect(entry.replicas.find((r) => r.worker === a)).toBe(single);
  });

  it('returns request and response schemas as they were registered', () => {
    const registry = new FunctionRegistry();
    const request = {
      type: 'object',
      properties: { name: { type: 'string', description: 'nom, 名前 ✓' }, n: { type: 'integer', minimum: 1 } },
      required: ['name'],
    };
    const response = { type: ['object', 'null'], nullable: true };
    registry.register('f', worker(), { request_format: request, response_format: response });
    registry.register('g', worker(), { response_format: null });
    const f = registry.get('f')!.primary;
    expect(f.requestFormat()).toEqual(request);
    expect(f.responseFormat()).toEqual(response);
    // each read is a copy: a caller changing it changes nothing stored
    (f.requestFormat() as { type: string }).type = 'changed';
    expect(f.requestFormat()).toEqual(request);
    const g = registry.get('g')!.primary;
    expect(g.requestFormat()).toBeUndefined();
    expect(g.responseFormat()).toBeNull();
  });
});
