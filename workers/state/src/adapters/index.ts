/** Picks the store named by `adapter.class` in the config. */
import { STATE_ADAPTERS, type StateAdapterConfig } from '@svc/config';
import type { Logger } from 'pino';
import { FileAdapter } from './file.js';
import { MemoryAdapter } from './memory.js';
import { RedisAdapter } from './redis.js';
import type { StateAdapter } from './types.js';
import { BridgeAdapter } from './bridge.js';

export function createAdapter(config: StateAdapterConfig, logger: Logger): StateAdapter {
  switch (config.class) {
    case STATE_ADAPTERS.kvStore: {
      const { store_method, file_path, save_interval_ms } = config.config;
      if (store_method === 'in_memory') return new MemoryAdapter(logger);
      // The schema guarantees file_path for file_based stores.
      return new FileAdapter({ filePath: file_path as string, saveIntervalMs: save_interval_ms, logger });
    }
    case STATE_ADAPTERS.kvserver:
      return new RedisAdapter({ url: config.config.kvserver_url, keyPrefix: config.config.key_prefix, logger });
    case STATE_ADAPTERS.bridge:
      return new BridgeAdapter({ url: config.config.bridge_url, logger });
  }
}

export function describeAdapter(config: StateAdapterConfig): string {
  if (config.class === STATE_ADAPTERS.kvStore) return `kv_store:${config.config.store_method}`;
  return config.class === STATE_ADAPTERS.kvserver ? 'kvserver' : 'bridge';
}
