import type { Logger } from 'pino';
import { STREAM_ADAPTERS, type StreamAdapterConfig, type StreamConfig } from '@svc/config';
import { FileStreamAdapter } from './adapters/file.js';
import { MemoryStreamAdapter } from './adapters/memory.js';
import { RedisStreamAdapter } from './adapters/redis.js';
import type { StreamAdapter } from './adapters/types.js';
import type { ClientServerOptions } from './server/client-server.js';

export { streamConfigSchema, type StreamConfig } from '@svc/config';

/** Builds the adapter the config names (not started). */
export function createAdapter(config: StreamAdapterConfig, logger: Logger): StreamAdapter {
  switch (config.class) {
    case STREAM_ADAPTERS.kvStore: {
      const c = config.config;
      if (c.store_method === 'in_memory') {
        logger.warn('stream adapter KvStore in_memory: data is lost on restart; do not use in production');
        return new MemoryStreamAdapter();
      }
      return new FileStreamAdapter({
        dir: c.file_path ?? 'data/stream',
        saveIntervalMs: c.save_interval_ms,
        onFlushError: (err) => logger.error({ err }, 'stream file store: flush failed; will retry'),
      });
    }
    case STREAM_ADAPTERS.kvserver:
      return new RedisStreamAdapter({
        url: config.config.kvserver_url,
        keyPrefix: config.config.key_prefix,
        onError: (err) => logger.warn({ err }, 'stream kvserver adapter error'),
      });
    case STREAM_ADAPTERS.bridge:
      throw new Error(unsupportedAdapter(config) ?? 'unsupported adapter');
  }
}

/** A config error for an adapter class svc-stream does not implement, or undefined when it does. */
export function unsupportedAdapter(config: StreamAdapterConfig): string | undefined {
  if (config.class !== STREAM_ADAPTERS.bridge) return undefined;
  return `adapter.class: ${STREAM_ADAPTERS.bridge} is not supported by svc-stream yet; use ${STREAM_ADAPTERS.kvStore} or ${STREAM_ADAPTERS.kvserver}`;
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
