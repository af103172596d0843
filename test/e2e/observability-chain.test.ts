/**
 * One trace across every hop: HTTP request → svc-http → engine → our worker → nested trigger → an iii-sdk worker
 * → enqueue → svc-queue → the job's handler (ours) → state write → svc-state → the state trigger's handler. The
 * engine records a span per invocation in the executor's name; svc-http and the iii-sdk worker add their own; all
 * land in svc-otel, whose `engine::traces::tree` is asserted (parents, services, order). Handler logs land in the
 * log store with the trace and span ids.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SvcClient } from '@svc/sdk';
import { spawnWorker, waitFor, type Child, type EngineProcess } from '../harness.js';
import { client, eventually, httpModule, spans, startObservedEngine, type SpanNode } from './observability-support.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let engine: EngineProcess;
let ours: SvcClient;
let iii: Child;
let base: string;
const done: string[] = [];

beforeAll(async () => {
  const http = await httpModule();
  base = http.base;
  engine = await startObservedEngine({}, [
    http.entry,
    {
      class: 'modules::state::StateModule',
      config: { adapter: { class: 'modules::state::adapters::KvStore', config: { store_method: 'in_memory' } } },
    },
    {
      class: 'modules::queue::QueueModule',
      config: { adapter: { class: 'modules::queue::BuiltinQueueAdapter', config: { store_method: 'in_memory' } } },
    },
  ]);
  ours = await client(engine.url, 'obs-ours', true);
  ours.registerFunction('obs::entry', async (req: { body: { run: string } }, ctx) => {
    ctx.logger.info('entry reached', { run: req.body.run });
    await ctx.trigger({ function_id: 'obs::iii-step', payload: { run: req.body.run } });
    return { status_code: 202, body: { run: req.body.run } };
  });
  ours.registerFunction('obs::job', async (data: { run: string }, ctx) => {
    await ctx.trigger({
      function_id: 'state::set',
      payload: { scope: 'obs', key: data.run, value: { run: data.run } },
    });
    return null;
  });
  ours.registerFunction('obs::on-state', (event: { key: string }, ctx) => {
    ctx.logger.warn('state changed', { key: event.key });
    done.push(event.key);
  });
  ours.registerTrigger({
    type: 'http',
    function_id: 'obs::entry',
    config: { api_path: '/obs/chain', http_method: 'POST' },
  });
  ours.registerTrigger({ type: 'state', function_id: 'obs::on-state', config: { scope: 'obs' } });
  iii = spawnWorker('test/e2e/observability-fixtures/iii-chain-worker.mjs', { SVC_URL: engine.url });
  await iii.waitForOutput(/^ready$/m, 20_000);
});

afterAll(async () => {
  await ours?.shutdown();
  await iii?.stop();
  await engine?.stop();
});

function walk(node: SpanNode, visit: (n: SpanNode, depth: number) => void, depth = 0): void {
  visit(node, depth);
  for (const child of node.children) walk(child, visit, depth + 1);
}

/** The chain of spans from `root` down to the first span named `name` (depth-first). */
function pathTo(root: SpanNode, name: string): SpanNode[] | undefined {
  if (root.name === name) return [root];
  for (const child of root.children) {
    const path = pathTo(child, name);
    if (path !== undefined) return [root, ...path];
  }
  return undefined;
}

describe('a request chain through every hop', () => {
  it('produces one trace whose tree has every hop, in order, under the HTTP request', async () => {
    const run = randomUUID();
    await waitFor(
      async () => {
        const res = await request(`${base}/obs/chain`, {
          method: 'POST',
          body: JSON.stringify({ run }),
          headers: { 'content-type': 'application/json' },
        });
        await res.body.dump();
        return res.statusCode === 202;
      },
      15_000,
      'the route',
    );
    await waitFor(() => done.includes(run), 15_000, 'the state trigger');
    const all = await eventually(
      async () => {
        const found = await spans(ours, { name: 'obs::on-state' });
        return found.length > 0 ? found : undefined;
      },
      10_000,
      'the span of the state trigger',
    );
    const traceId = all[0]?.trace_id;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);

    const tree = await eventually(
      async () => {
        const t = await ours.trigger<{ roots: SpanNode[]; span_count: number }>({
          function_id: 'engine::traces::tree',
          payload: { trace_id: traceId },
        });
        // spans reach the store from several processes in any order: wait for the root itself (no parent)
        const root = t.roots.length === 1 ? t.roots[0]! : undefined;
        return root?.parent_span_id === undefined && root !== undefined && pathTo(root, 'obs::on-state')
          ? t
          : undefined;
      },
      10_000,
      'a connected tree',
    ).catch(async (err: unknown) => {
      const t = await ours.trigger({ function_id: 'engine::traces::tree', payload: { trace_id: traceId } });
      console.error(JSON.stringify(t, (k, v) => (['attributes', 'resource', 'events'].includes(k) ? undefined : v), 1));
      throw err;
    });
    const root = tree.roots[0]!;
    expect(root).toMatchObject({ name: 'POST /obs/chain', service: 'svc-http', kind: 'server' });
    expect(root.attributes).toMatchObject({ 'http.route': '/obs/chain', 'http.response.status_code': 202 });

    const path = pathTo(root, 'obs::on-state')!;
    const hops = path.map((s) => [s.name, s.service]);
    const expected = [
      ['POST /obs/chain', 'svc-http'],
      ['obs::entry', 'obs-ours'],
      ['obs::iii-step', 'obs-iii'],
      ['engine::queue::enqueue', 'svc-queue'],
      ['obs::job', 'obs-ours'],
      ['state::set', 'svc-state'],
      ['obs::on-state', 'obs-ours'],
    ];
    // in this order from the root down, each the ancestor of the next (the iii-sdk's own spans may sit between)
    const positions = expected.map(([name, service]) => hops.findIndex(([n, s]) => n === name && s === service));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    // every span of the trace is in the tree, and each child starts no earlier than its parent
    let count = 0;
    walk(root, (n) => {
      count++;
      expect(n.trace_id).toBe(traceId);
      for (const c of n.children) expect(c.start_ms).toBeGreaterThanOrEqual(n.start_ms - 1);
    });
    expect(count).toBe(tree.span_count);
    // the iii-sdk worker's own spans (from its /otel OTLP frames) are in the same trace, under its invocation
    const iiiStep = path.find((s) => s.name === 'obs::iii-step')!;
    const enqueueIndex = positions[3]!;
    const iiiOwn = path.slice(positions[2]! + 1, enqueueIndex);
    expect(iiiOwn.map((s) => [s.name, s.service])).toEqual([['execute obs::iii-step', 'iii-node']]);
    expect(iiiStep.children.map((s) => s.name)).toContain('execute obs::iii-step');
  });

  it('ties handler logs (ours and the iii-sdk worker) to the trace and the span of their invocation', async () => {
    const run = randomUUID();
    const res = await request(`${base}/obs/chain`, {
      method: 'POST',
      body: JSON.stringify({ run }),
      headers: { 'content-type': 'application/json' },
    });
    await res.body.dump();
    await waitFor(() => done.includes(run), 15_000, 'the state trigger');
    const entry = await eventually(
      async () => {
        const out = await ours.trigger<{
          logs: {
            body: string;
            trace_id: string;
            span_id: string;
            service_name: string;
            attributes: Record<string, unknown>;
            severity_text: string;
          }[];
        }>({
          function_id: 'engine::logs::list',
          payload: { search: 'entry reached' },
        });
        return out.logs.find((l) => (l.attributes['log.data'] as { run?: string } | undefined)?.run === run);
      },
      10_000,
      'the log record',
    );
    expect(entry).toMatchObject({ body: 'entry reached', service_name: 'obs-ours', severity_text: 'INFO' });
    const span = await eventually(
      async () => (await spans(ours, { trace_id: entry.trace_id, name: 'obs::entry' }))[0],
      10_000,
      'the span',
    );
    expect(span.span_id).toBe(entry.span_id);
    const iiiLog = await eventually(
      async () => {
        const out = await ours.trigger<{ logs: { trace_id: string; attributes: Record<string, unknown> }[] }>({
          function_id: 'engine::logs::list',
          payload: { search: 'iii step', trace_id: entry.trace_id },
        });
        return out.logs[0];
      },
      10_000,
      'the iii-sdk log record',
    );
    expect(iiiLog.trace_id).toBe(entry.trace_id);
    // metrics: HTTP requests by route and status (svc-otel), queue depth per topic (the engine's /metrics)
    const http = await eventually(
      async () => {
        const out = await ours.trigger<{
          metrics: { name: string; points: { attributes: Record<string, unknown> }[] }[];
        }>({
          function_id: 'engine::metrics::list',
          payload: { name: 'svc.http.requests' },
        });
        return out.metrics[0];
      },
      10_000,
      'svc.http.requests',
    );
    expect(http.points.at(-1)?.attributes).toEqual({ route: '/obs/chain', method: 'POST', status: '202' });
    // every job enqueued (all into obsq) is counted as completed once its handler returned
    const countOf = (text: string, re: RegExp): number | undefined => {
      const m = re.exec(text);
      return m ? Number(m[1]) : undefined;
    };
    const prometheus = await eventually(
      async () => {
        const text = await (await fetch(`http://127.0.0.1:${engine.port}/metrics`)).text();
        const enqueued = countOf(text, /^svc_invocations_total\{function="engine::queue::enqueue"\} (\d+)$/m);
        const completed = countOf(text, /^svc_queue_completed_total\{topic="obsq"\} (\d+)$/m);
        return enqueued !== undefined && completed === enqueued && text;
      },
      10_000,
      'every enqueued job counted as completed in /metrics',
    );
    expect(prometheus).toMatch(/^svc_queue_depth\{topic="obsq"\} 0$/m);
    expect(prometheus).toMatch(/^svc_queue_dead_letters\{topic="obsq"\} 0$/m);
    expect(prometheus).toMatch(/^svc_queue_failed_total\{topic="obsq"\} 0$/m);
    // the capability workers' own log lines are in the store too (svc-queue's start-up line)
    const started = await ours.trigger<{ logs: { body: string; service_name: string }[] }>({
      function_id: 'engine::logs::list',
      payload: { service: 'svc-queue', search: 'svc-queue started' },
    });
    expect(started.logs.map((l) => l.body)).toContain('svc-queue started');
  });
});
