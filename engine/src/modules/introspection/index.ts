/**
 * The engine's own functions (`engine::*`, PROTOCOL.md §4.1) and topology trigger types, as an engine module: it
 * reaches the core through an in-process SDK client like any worker, plus `ctx.engine`'s read-only snapshots.
 * `startEngine` loads it unless the module list already has one.
 */
import type { SvcClient } from '@svc/sdk';
import type { EngineInternals, EngineModule, ModuleContext } from '../module.js';
import { functionInfo, listFunctions } from './functions.js';
import { TopologyTriggers } from './topology-triggers.js';
import { listRegisteredTriggers, listTriggerTypes, registeredTriggerInfo, triggerTypeInfo } from './triggers.js';
import { listWorkers, registerWorkerMetadata, workerInfo } from './workers.js';

export const INTROSPECTION_MODULE = 'modules::introspection::IntrospectionModule';

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
};

function healthCheck(engine: EngineInternals): unknown {
  const disabled = { status: 'disabled', details: 'no observability module loaded' };
  return {
    status: 'healthy',
    components: {
      engine: { status: 'healthy', details: engine.stats() },
      otel: disabled,
      metrics: disabled,
      logs: disabled,
      spans: disabled,
    },
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
      topology = new TopologyTriggers(client, ctx.engine, ctx.logger);
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
