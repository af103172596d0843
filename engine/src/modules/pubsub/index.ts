/**
 * `modules::pubsub::PubSubModule` factory: builds the module with the adapter its config names.
 */
import { PUBSUB_ADAPTERS, pubsubConfigSchema, type PubSubConfig } from '@svc/config';
import type { EngineModule } from '../module.js';
import { LocalAdapter } from './adapters/local.js';
import { KvserverAdapter } from './adapters/redis.js';
import type { PubSubAdapter } from './adapters/types.js';
import { PubSubModule } from './pubsub-module.js';

export { PubSubModule, PUBLISH_FUNCTION_ID, SUBSCRIBE_TRIGGER_TYPE, TOPIC_NOT_SET } from './pubsub-module.js';
export type { PubSubAdapter } from './adapters/types.js';
export { LocalAdapter, KvserverAdapter };

/** `config` is the module's resolved config (`{ adapter: { class, config } }`); it is validated again here. */
export function createPubSubModule(config: unknown = { adapter: { class: PUBSUB_ADAPTERS.local } }): EngineModule {
  const resolved: PubSubConfig = pubsubConfigSchema.parse(config);
  return new PubSubModule(createAdapter(resolved));
}

function createAdapter(config: PubSubConfig): PubSubAdapter {
  const adapter = config.adapter;
  switch (adapter.class) {
    case PUBSUB_ADAPTERS.local:
      return new LocalAdapter();
    case PUBSUB_ADAPTERS.kvserver:
      return new KvserverAdapter(adapter.config);
  }
}
