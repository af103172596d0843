/**
 * svc-state: the `state::*` functions and the `state` trigger type, over the store named in the config. Spawned by
 * the engine (`SVC_URL`, `SVC_MODULE_CONFIG`, `SVC_SUPERVISED=1`) or started by hand the same way.
 */
import { runCapabilityWorker } from '@svc/sdk';
import { createAdapter, describeAdapter } from './adapters/index.js';
import { readStateConfig } from './config.js';
import { TriggerDispatcher } from './dispatcher.js';
import { registerStateFunctions } from './functions.js';
import { enableWriteTrace } from './write-trace.js';
import { StateTriggers } from './triggers.js';

const config = readStateConfig();

void runCapabilityWorker({
  name: 'svc-state',
  async start(client, logger) {
    const adapter = await createAdapter(config.adapter, logger);
    await adapter.start();
    const dispatcher = new TriggerDispatcher(config.max_pending_triggers, logger);
    const triggers = new StateTriggers(client, dispatcher, {
      timeoutMs: config.trigger_timeout_ms,
      maxPending: config.max_pending_triggers,
      logger,
    });
    adapter.onChange((change) => triggers.onChange(change));
    triggers.register();
    if (client.telemetry !== undefined) enableWriteTrace(); // state triggers join the writer's trace
    registerStateFunctions(client, { adapter, dispatcher, maxValueBytes: config.max_value_bytes });
    await client.synced(); // registered at the engine before the line below says so
    logger.info({ adapter: describeAdapter(config.adapter) }, 'svc-state ready');
    return {
      async close() {
        await adapter.close();
        await dispatcher.drain(2000);
      },
    };
  },
});
