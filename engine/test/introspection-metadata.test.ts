/**
 * The introspection module's `engine::workers::register`: the metadata a worker reports is untrusted, so the
 * module sanitises it before the core stores it (control and bidi characters removed, text cut to 280).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createIntrospectionModule } from '../src/modules/introspection/index.js';
import { moduleTestBed } from './module-context.js';

const settle = () => new Promise((r) => setTimeout(r, 20));

describe('introspection: worker metadata', () => {
  it('stores sanitised metadata for the calling worker and reports the change to observers', async () => {
    const { core, ctx, connect } = moduleTestBed();
    const module = createIntrospectionModule();
    await module.start(ctx);
    const events: string[] = [];
    ctx.hooks.observe({ topology: (e) => e.kind === 'worker' && events.push(e.event) });
    const w = connect();
    const id = randomUUID();
    core.receive(w.worker, {
      type: 'invokefunction',
      invocation_id: id,
      function_id: 'engine::workers::register',
      data: { name: 'x\u202e\u0007y', pid: 7, runtime: 'node', description: 'd'.repeat(400), os: 5 },
    });
    await settle();
    expect(w.conn.of('invocationresult')[0]).toMatchObject({ invocation_id: id, result: { success: true } });
    const meta = core.workers.get(w.worker.id)?.metadata;
    expect(meta).toMatchObject({ name: 'xy', pid: 7, runtime: 'node' });
    expect(meta?.description).toHaveLength(280);
    expect(meta).not.toHaveProperty('os');
    expect(events).toContain('worker_metadata_updated');
    await module.close();
  });
});

describe('introspection: function schemas', () => {
  it('engine::functions::info answers the request and response schemas as registered', async () => {
    const { core, ctx, connect } = moduleTestBed();
    const module = createIntrospectionModule();
    await module.start(ctx);
    const w = connect();
    const request = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
    const response = { type: 'boolean' };
    core.receive(w.worker, {
      type: 'registerfunction',
      id: 'orders::get',
      description: 'Gets an order',
      request_format: request,
      response_format: response,
    });
    core.receive(w.worker, { type: 'registerfunction', id: 'orders::plain' });
    const id = randomUUID();
    core.receive(w.worker, {
      type: 'invokefunction',
      invocation_id: id,
      function_id: 'engine::functions::info',
      data: { function_ids: ['orders::get', 'orders::plain'] },
    });
    await settle();
    const answer = w.conn.of('invocationresult').find((m) => m.invocation_id === id);
    expect(answer?.error).toBeUndefined();
    const text = JSON.stringify(answer?.result);
    expect(text).toContain(JSON.stringify(request));
    expect(text).toContain(JSON.stringify(response));
    expect(text).toContain('Gets an order');
    await module.close();
  });
});
