/** `context.state` and `context.logger` in a handler, against the real engine and a real svc-state process. */
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnWorker, startEngine, type Child, type EngineProcess } from '../../test/harness.js';
import type { HandlerContext, SvcClient } from '../src/index.js';
import { barrier, connect, shutdownAll } from './support.js';

let engine: EngineProcess;
let state: Child;
let worker: SvcClient;
const lines: string[] = [];

beforeAll(async () => {
  engine = await startEngine({ bare: true });
  state = spawnWorker('workers/state/dist/main.js', {
    SVC_URL: engine.url,
    SVC_MODULE_CONFIG: JSON.stringify({
      adapter: { class: 'modules::state::adapters::KvStore', config: { store_method: 'in_memory' } },
    }),
  });
  await state.waitForOutput('"svc-state started"', 15000);
  const logger = pino({ level: 'debug' }, { write: (l: string) => void lines.push(l) });
  worker = connect(engine.url, 'ctx-state-worker', { logger });
  await worker.ready();
});

afterAll(async () => {
  await shutdownAll();
  await state?.stop();
  await engine?.stop();
});

describe('handler context', () => {
  it('state.set/get/list/delete reach svc-state through the engine', async () => {
    const scope = `ctx-${randomUUID()}`;
    worker.registerFunction('ctx::state', async (_p: unknown, ctx: HandlerContext) => {
      const first = await ctx.state.set(scope, 'a', { n: 1 });
      const second = await ctx.state.set(scope, 'a', { n: 2 });
      await ctx.state.set(scope, 'b', { n: 3 });
      const got = await ctx.state.get(scope, 'a');
      const missing = await ctx.state.get(scope, 'nope');
      const listed = await ctx.state.list<{ n: number }>(scope);
      const deleted = await ctx.state.delete(scope, 'a');
      const after = await ctx.state.get(scope, 'a');
      return { first, second, got, missing: missing === undefined, listed, deleted, after: after === undefined };
    });
    await barrier(worker);
    const out = await worker.trigger<Record<string, unknown>>({ function_id: 'ctx::state', payload: {} });
    expect(out.first).toMatchObject({ new_value: { n: 1 } });
    expect(out.second).toMatchObject({ old_value: { n: 1 }, new_value: { n: 2 } });
    expect(out.got).toEqual({ n: 2 });
    expect(out.missing).toBe(true);
    expect((out.listed as { n: number }[]).map((v) => v.n).sort()).toEqual([2, 3]);
    expect(out.deleted).toEqual({ n: 2 });
    expect(out.after).toBe(true);
  });

  it('logger lines carry the function id, invocation id and data', async () => {
    worker.registerFunction('ctx::log', (_p: unknown, ctx: HandlerContext) => {
      ctx.logger.info('hello from handler', { k: 'v' });
      ctx.logger.warn('careful');
      return ctx.invocationId;
    });
    await barrier(worker);
    const invocationId = await worker.trigger<string>({ function_id: 'ctx::log', payload: {} });
    const info = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'hello from handler');
    expect(info).toMatchObject({ level: 30, function_id: 'ctx::log', invocation_id: invocationId, data: { k: 'v' } });
    const warn = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'careful');
    expect(warn).toMatchObject({ level: 40, function_id: 'ctx::log', invocation_id: invocationId });
  });
});
