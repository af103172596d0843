/** Routes over the engine's introspection functions (`engine::functions::*`, `engine::workers::*`, ...). */
import { newTraceparent, parseTraceparent, InvocationError } from '@svc/sdk';
import { bodyObject, ConsoleInputError, isRecord, requireString } from '../http-shape.js';
import { MAX_INVOKE_TIMEOUT_MS } from '../options.js';
import type { ConsoleContext, Route } from '../route.js';

const listQuery = (q: Record<string, string>): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  if (q.search) out.search = q.search;
  if (q.worker) out.worker = q.worker;
  if (q.include_internal === 'true') out.include_internal = true;
  return out;
};

export const engineRoutes: Route[] = [
  {
    name: 'status',
    method: 'GET',
    path: '_console/status',
    description: 'Console status: the engine it talks to and whether the Flow page is on',
    handler: async (_req, ctx) => {
      const { workers } = await ctx.call<{ workers: unknown[] }>('engine::workers::list', {});
      const o = ctx.options;
      return {
        connected: true,
        engine: `ws://${o.engineHost}:${o.bridgePort}`,
        rest: `http://${o.engineHost}:${o.enginePort}`,
        workers: workers.length,
        enable_flow: o.enableFlow,
      };
    },
  },
  {
    name: 'health',
    method: 'GET',
    path: '_console/health',
    description: 'engine::health::check, or a summary from the worker list when the engine has no health function',
    handler: async (_req, ctx) => {
      try {
        return await ctx.call('engine::health::check', {});
      } catch (err) {
        if (!(err instanceof InvocationError) || err.code !== 'function_not_found') throw err;
        const { workers } = await ctx.call<{ workers: unknown[] }>('engine::workers::list', {});
        return { status: 'healthy', components: {}, workers: workers.length, timestamp: Date.now() };
      }
    },
  },
  {
    name: 'functions',
    method: 'GET',
    path: '_console/functions',
    description: 'Registered functions (engine::functions::list); ?search=&worker=&include_internal=true',
    handler: (req, ctx) => ctx.call('engine::functions::list', listQuery(req.query_params)),
  },
  {
    name: 'function_detail',
    method: 'GET',
    path: '_console/functions/:function_id',
    description: 'One function with its schemas and triggers (engine::functions::info)',
    handler: (req, ctx) =>
      ctx.call('engine::functions::info', { function_id: decodeURIComponent(req.path_params.function_id ?? '') }),
  },
  {
    name: 'triggers',
    method: 'GET',
    path: '_console/triggers',
    description: 'Registered triggers with their config (engine::registered-triggers::list)',
    handler: (req, ctx) => ctx.call('engine::registered-triggers::list', listQuery(req.query_params)),
  },
  {
    name: 'trigger_types',
    method: 'GET',
    path: '_console/trigger-types',
    description: 'Trigger types and their providers (engine::triggers::list)',
    handler: (req, ctx) => ctx.call('engine::triggers::list', listQuery(req.query_params)),
  },
  {
    name: 'workers',
    method: 'GET',
    path: '_console/workers',
    description:
      'Connected workers (engine::workers::list), each with its pid and function ids (engine::workers::info)',
    handler: async (req, ctx) => {
      const { workers } = await ctx.call<{ workers: Record<string, unknown>[] }>(
        'engine::workers::list',
        listQuery(req.query_params),
      );
      return { workers: await Promise.all(workers.map((w) => withDetail(ctx, w))) };
    },
  },
  {
    name: 'worker_detail',
    method: 'GET',
    path: '_console/workers/:name',
    description: 'One worker with its functions and triggers (engine::workers::info)',
    handler: (req, ctx) => ctx.call('engine::workers::info', { name: decodeURIComponent(req.path_params.name ?? '') }),
  },
  {
    name: 'invoke',
    method: 'POST',
    path: '_console/invoke',
    description: 'Invokes {function_id, payload, timeout_ms?}; answers {ok, result | error, duration_ms, trace_id}',
    handler: async (req, ctx) => {
      const body = bodyObject(req, '_console/invoke');
      const functionId = requireString(body, 'function_id', '_console/invoke');
      const timeoutMs = invokeTimeout(body.timeout_ms);
      const traceparent = newTraceparent();
      const traceId = parseTraceparent(traceparent)?.traceId ?? null;
      const started = performance.now();
      try {
        const result = await ctx.call(functionId, body.payload ?? {}, { timeoutMs, traceparent });
        return { ok: true, result: result ?? null, duration_ms: elapsed(started), trace_id: traceId };
      } catch (err) {
        if (!(err instanceof InvocationError)) throw err;
        const error = {
          code: err.code,
          message: err.detail,
          ...(err.stacktrace ? { stacktrace: err.stacktrace } : {}),
        };
        return { ok: false, error, duration_ms: elapsed(started), trace_id: traceId };
      }
    },
  },
  {
    name: 'cron_list',
    method: 'GET',
    path: '_console/cron',
    description: 'Cron bindings with their next run (cron::list)',
    handler: (_req, ctx) => ctx.call('cron::list', {}),
  },
  {
    name: 'cron_trigger',
    method: 'POST',
    path: '_console/cron/trigger',
    description: 'Fires a cron binding now: {trigger_id}',
    handler: async (req, ctx) => {
      const body = bodyObject(req, '_console/cron/trigger');
      const id = typeof body.trigger_id === 'string' ? body.trigger_id : body.id;
      if (typeof id !== 'string' || id === '') {
        throw new ConsoleInputError('_console/cron/trigger: "trigger_id" must be a non-empty string');
      }
      return ctx.call('cron::trigger', { id });
    },
  },
  {
    name: 'emit',
    method: 'POST',
    path: '_console/events/emit',
    description: 'Publishes a named event: {topic, data} (publish)',
    handler: async (req, ctx) => {
      const body = bodyObject(req, '_console/events/emit');
      const topic = requireString(body, 'topic', '_console/events/emit');
      await ctx.call('publish', { topic, data: isRecord(body) ? (body.data ?? null) : null });
      return { emitted: true, topic };
    },
  },
];

interface WorkerInfo {
  worker?: { pid?: number | null };
  functions?: { function_id: string }[];
}

/** Adds pid and function ids; a worker that left between the two calls keeps its summary only. */
async function withDetail(ctx: ConsoleContext, worker: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (typeof worker.id !== 'string') return worker;
  try {
    const info = await ctx.call<WorkerInfo>('engine::workers::info', { id: worker.id });
    return { ...worker, pid: info.worker?.pid ?? null, functions: (info.functions ?? []).map((f) => f.function_id) };
  } catch {
    return worker;
  }
}

function invokeTimeout(value: unknown): number {
  if (value === undefined) return 30000;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_INVOKE_TIMEOUT_MS) {
    throw new ConsoleInputError(`_console/invoke: "timeout_ms" must be an integer from 1 to ${MAX_INVOKE_TIMEOUT_MS}`);
  }
  return value;
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}
