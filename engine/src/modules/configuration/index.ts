/**
 * The `configuration` engine module (always loaded, like the introspection module): `configuration::*` functions
 * and the `configuration` trigger type, whose bindings fire on `configuration:registered` / `configuration:updated`
 * (filtered by the binding's `configuration_id` and `event_types`, then its `condition_function_id`). Values live
 * in memory, and with a `directory` also on disk (persistence.ts), read back at start.
 */
import type { SvcClient, TriggerBinding } from '@svc/sdk';
import type { EngineModule, ModuleContext } from '../module.js';
import { configurationFunctions } from './functions.js';
import { ConfigurationFiles } from './persistence.js';
import { ConfigurationStore, type ConfigurationChange, type ConfigurationLimits } from './store.js';

export const CONFIGURATION_MODULE = 'modules::configuration::ConfigurationModule';
export const CONFIGURATION_TRIGGER_TYPE = 'configuration';

interface Filter {
  configuration_id?: unknown;
  event_types?: unknown;
}

function matches(binding: TriggerBinding, change: ConfigurationChange): boolean {
  const filter = (typeof binding.config === 'object' && binding.config !== null ? binding.config : {}) as Filter;
  if (typeof filter.configuration_id === 'string' && filter.configuration_id !== change.entry.id) return false;
  if (Array.isArray(filter.event_types) && !filter.event_types.includes(change.event_type)) return false;
  return true;
}

function eventPayload(change: ConfigurationChange): Record<string, unknown> {
  const { entry } = change;
  const payload: Record<string, unknown> = {
    type: CONFIGURATION_TRIGGER_TYPE,
    event_type: change.event_type,
    id: entry.id,
    name: entry.name,
    description: entry.description,
    schema: entry.schema,
    old_value: change.old_value ?? null,
    new_value: change.new_value ?? null,
  };
  if (entry.metadata !== undefined) payload.metadata = entry.metadata;
  return payload;
}

export interface ConfigurationModuleOptions {
  /** Keep each configuration as `<directory>/<id>.json`; absent: memory only. */
  directory?: string;
  /** How large configurations may be (`configuration.max_entry_bytes`, `max_total_bytes`). */
  limits?: ConfigurationLimits;
}

export function createConfigurationModule(options: ConfigurationModuleOptions = {}): EngineModule {
  let client: SvcClient | undefined;
  const bindings = new Map<string, TriggerBinding>();
  const store = new ConfigurationStore(undefined, options.limits);
  const files = options.directory === undefined ? undefined : new ConfigurationFiles(options.directory);
  return {
    name: CONFIGURATION_MODULE,
    async start(ctx: ModuleContext): Promise<void> {
      if (files !== undefined) {
        const { entries, problems } = await files.loadAll();
        for (const problem of problems) ctx.logger.warn(`configuration file skipped: ${problem}`);
        for (const entry of entries) {
          try {
            await store.restore(entry);
          } catch (err) {
            ctx.logger.warn(`configuration '${entry.id}' not restored: ${(err as Error).message}`);
          }
        }
      }
      const c = await ctx.connect('configuration');
      client = c;
      const fire = async (change: ConfigurationChange): Promise<void> => {
        await files?.save(change.entry);
        const payload = eventPayload(change);
        for (const binding of bindings.values()) {
          if (!matches(binding, change)) continue;
          c.fireTrigger(binding, payload).catch((err: unknown) =>
            ctx.logger.warn({ err, trigger_id: binding.id }, 'configuration trigger delivery failed'),
          );
        }
      };
      for (const [id, { handler, description }] of Object.entries(configurationFunctions(store, fire))) {
        c.registerFunction(id, handler, { description });
      }
      c.registerTriggerType(
        { id: CONFIGURATION_TRIGGER_TYPE, description: 'Fires when a configuration is registered or updated' },
        {
          registerTrigger: (binding) => void bindings.set(binding.id, binding),
          unregisterTrigger: (binding) => void bindings.delete(binding.id),
        },
      );
    },
    async close(): Promise<void> {
      const c = client;
      client = undefined;
      bindings.clear();
      await Promise.all([c?.shutdown(), store.close()]);
    },
  };
}
