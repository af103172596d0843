/**
 * Picks the store named by `adapter.class` in the config. Each store's module (and its client: SQLite, Redis, the
 * bridge's SDK client) is imported only when the config names it.
 */
import { STATE_ADAPTERS, type StateAdapterConfig } from '../config.js';
import type { Logger } from 'pino';
import type { StateAdapter } from './types.js';

export async function createAdapter(config: StateAdapterConfig, logger: Logger): Promise<StateAdapter> {
  switch (config.class) {
    case STATE_ADAPTERS.kvStore: {
      const { store_method, file_path, save_interval_ms, max_store_bytes } = config.config;
      if (store_method === 'in_memory') {
        const { MemoryAdapter } = await import('./memory.js');
        return new MemoryAdapter(logger, max_store_bytes);
      }
      const { FileAdapter } = await import('./file.js');
      // The schema guarantees file_path for file_based stores.
      return new FileAdapter({ filePath: file_path as string, saveIntervalMs: save_interval_ms, logger });
    }
    case STATE_ADAPTERS.kvserver: {
      const { RedisAdapter } = await import('./redis.js');
      return new RedisAdapter({ url: config.config.kvserver_url, keyPrefix: config.config.key_prefix, logger });
    }
    case STATE_ADAPTERS.bridge: {
      const { BridgeAdapter } = await import('./bridge.js');
      return new BridgeAdapter({ url: config.config.bridge_url, logger });
    }
  }
}

export function describeAdapter(config: StateAdapterConfig): string {
  if (config.class === STATE_ADAPTERS.kvStore) return `kv_store:${config.config.store_method}`;
  return config.class === STATE_ADAPTERS.kvserver ? 'kvserver' : 'bridge';
}
