/**
 * The engine's own functions (`engine::*`, docs/compatibility.md "Functions") and topology trigger types, as an engine
 * module: it reaches the core through an in-process SDK client like any worker, plus `ctx.engine`'s read-only
 * snapshots. `startEngine` loads it unless the module list already has one.
 */
import type { HandlerContext, SvcClient } from '@svc/sdk';
import type { EngineInternals, EngineModule, ModuleContext } from '../module.js';
import { baggageGet, baggageGetAll, baggageSet } from './baggage.js';
import { functionInfo, listFunctions } from './functions.js';
import { listServices } from './services.js';
import { OWNERLESS_FUNCTIONS, OwnerlessTriggers } from './trigger-bindings.js';
import { TopologyTriggers } from './topology-triggers.js';
import { listRegisteredTriggers, listTriggerTypes, registeredTriggerInfo, triggerTypeInfo } from './triggers.js';
import { listWorkers, registerWorkerMetadata, workerInfo } from './workers.js';

export const INTROSPECTION_MODULE = 'modules::introspection::IntrospectionModule';
export { WORKERS_REGISTER_FUNCTION } from './workers.js';

type Handler = (engine: EngineInternals, payload: unknown) => unknown;

const FUNCTIONS: Record<string, { handler: Handler; description: string }> = {
  'engine::functions::list': { handler: listFunctions, description: 'List registered functions' },
  'engine::functions::info': { handler: functionInfo, description: 'Describe one or more functions' },
  'engine::workers::list': { handler: listWorkers, description: 'List connected workers' },
  'engine::workers::info': { handler: workerInfo, description: 'Describe one worker' },
  'engine::workers::register': { handler: registerWorkerMetadata, description: 'Report worker metadata' },
  'engine::triggers::list': { handler: listTriggerTypes, description: 'List trigger types' },
  'engine::triggers::info': { handler: triggerTypeInfo, description: 'Describe one trigger type' },
  'engine::registered-triggers::list': { handler: listRegisteredTriggers, description: 'List trigger bindings' },
  'engine::registered-triggers::info': { handler: registeredTriggerInfo, description: 'Describe one binding' },
  'engine::health::check': { handler: healthCheck, description: 'Engine health' },
  'engine::services::list': { handler: listServices, description: 'List services (registerservice, function ids)' },
};

/** Functions that read the call's own context (its baggage). */
const CONTEXT_FUNCTIONS: Record<
  string,
  { handler: (payload: unknown, ctx: HandlerContext) => unknown; description: string }
> = {
  'engine::baggage::get': { handler: baggageGet, description: "Read one entry of the call's baggage: {value}" },
  'engine::baggage::get_all': { handler: baggageGetAll, description: "Read the call's baggage: {baggage}" },
  'engine::baggage::set': { handler: baggageSet, description: 'The call baggage with one entry set: {baggage}' },
};

async function healthCheck(engine: EngineInternals): Promise<unknown> {
  const disabled = { status: 'disabled', details: 'no observability module loaded' };
  const components = {
    engine: { status: 'healthy', details: engine.stats() },
    otel: disabled,
    metrics: disabled,
    logs: disabled,
    spans: disabled,
    ...(await engine.healthComponents()),
  };
  const failing = Object.values(components).some((c) => c.status === 'unhealthy');
  return {
    status: failing ? 'degraded' : 'healthy',
    components,
    timestamp: Date.now(),
    version: engine.version,
    uptime_ms: Date.now() - engine.startedAtMs,
  };
}

export function createIntrospectionModule(): EngineModule {
  let client: SvcClient | undefined;
  let topology: TopologyTriggers | undefined;
  return {
    name: INTROSPECTION_MODULE,
    async start(ctx: ModuleContext): Promise<void> {
      client = await ctx.connect('svc-engine');
      for (const [id, { handler, description }] of Object.entries(FUNCTIONS)) {
        client.registerFunction(id, (payload: unknown) => handler(ctx.engine, payload), { description });
      }
      for (const [id, { handler, description }] of Object.entries(CONTEXT_FUNCTIONS)) {
        client.registerFunction(id, handler, { description });
      }
      const ownerless = new OwnerlessTriggers(client);
      const [register, unregister] = Object.entries(OWNERLESS_FUNCTIONS);
      client.registerFunction(register![0], (p: unknown) => ownerless.register(p), { description: register![1] });
      client.registerFunction(unregister![0], (p: unknown) => ownerless.unregister(p), { description: unregister![1] });
      topology = new TopologyTriggers(client, ctx.engine, ctx.hooks, ctx.logger);
      topology.start();
    },
    async close(): Promise<void> {
      topology?.close();
      topology = undefined;
      const c = client;
      client = undefined;
      await c?.shutdown();
    },
  };
}
