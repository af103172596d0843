/**
 * `modules::pubsub::PubSubModule` factory: builds the module with the adapter its config names. The adapter's
 * module (with its Redis client, for `KvserverAdapter`) is imported only when the config names it.
 */
import { PUBSUB_ADAPTERS, type DeepReadonly, type PubSubConfig } from '@svc/config';
import type { EngineModule } from '../module.js';
import type { PubSubAdapter } from './adapters/types.js';
import { PubSubModule } from './pubsub-module.js';

export { PubSubModule, PUBLISH_FUNCTION_ID, SUBSCRIBE_TRIGGER_TYPE } from './pubsub-module.js';
export type { PubSubAdapter } from './adapters/types.js';

const LOCAL_ONLY: DeepReadonly<PubSubConfig> = { adapter: { class: PUBSUB_ADAPTERS.local, config: {} } };

/**
 * `config` is the module's resolved config (`{ adapter: { class, config } }`), validated once by the config
 * pipeline (`loadConfig`) with its defaults applied; it is taken as it is.
 */
export async function createPubSubModule(config: DeepReadonly<PubSubConfig> = LOCAL_ONLY): Promise<EngineModule> {
  return new PubSubModule(await createAdapter(config));
}

async function createAdapter(config: DeepReadonly<PubSubConfig>): Promise<PubSubAdapter> {
  const adapter = config.adapter;
  switch (adapter.class) {
    case PUBSUB_ADAPTERS.local: {
      const { LocalAdapter } = await import('./adapters/local.js');
      return new LocalAdapter();
    }
    case PUBSUB_ADAPTERS.kvserver: {
      const { KvserverAdapter } = await import('./adapters/redis.js');
      return new KvserverAdapter(adapter.config);
    }
  }
}
