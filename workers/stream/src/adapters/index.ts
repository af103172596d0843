/**
 * Builds the stream adapter and the client server's options from svc-stream's config. Each adapter's module (and
 * its client: SQLite, Redis, the bridge's SDK client) is imported only when the config names it.
 */
import type { Logger } from 'pino';
import { STREAM_ADAPTERS, type StreamAdapterConfig, type StreamConfig } from '../config.js';
import type { ClientServerOptions } from '../server/client-server.js';
import type { StreamAdapter } from './types.js';

/** Builds the adapter the config names (not started). */
export async function createAdapter(config: StreamAdapterConfig, logger: Logger): Promise<StreamAdapter> {
  switch (config.class) {
    case STREAM_ADAPTERS.kvStore: {
      const c = config.config;
      if (c.store_method === 'in_memory') {
        logger.warn('stream adapter KvStore in_memory: data is lost on restart; do not use in production');
        const { MemoryStreamAdapter } = await import('./memory.js');
        return new MemoryStreamAdapter(c.max_store_bytes);
      }
      const { FileStreamAdapter } = await import('./file.js');
      return new FileStreamAdapter({
        dir: c.file_path ?? 'data/stream',
        saveIntervalMs: c.save_interval_ms,
        maxStoreBytes: c.max_store_bytes,
        onFlushError: (err) => logger.error({ err }, 'stream file store: flush failed; will retry'),
      });
    }
    case STREAM_ADAPTERS.kvserver: {
      const { RedisStreamAdapter } = await import('./redis.js');
      return new RedisStreamAdapter({
        url: config.config.kvserver_url,
        keyPrefix: config.config.key_prefix,
        onError: (err) => logger.warn({ err }, 'stream kvserver adapter error'),
      });
    }
    case STREAM_ADAPTERS.bridge: {
      const { BridgeStreamAdapter } = await import('./bridge.js');
      return new BridgeStreamAdapter({ url: config.config.bridge_url, logger });
    }
  }
}

export function serverOptions(config: StreamConfig): ClientServerOptions {
  return {
    port: config.port,
    host: config.host,
    maxMessageBytes: config.max_message_bytes,
    maxBufferedBytes: config.max_buffered_bytes,
    maxMessagesPerSecond: config.max_messages_per_second,
    maxMissedPongs: config.max_missed_pongs,
    maxSubscriptions: config.max_subscriptions_per_connection,
    pingIntervalMs: config.ping_interval_ms,
    handshakeTimeoutMs: config.handshake_timeout_ms,
    allowedOrigins: config.allowed_origins,
  };
}
