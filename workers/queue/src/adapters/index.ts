/**
 * Picks the backend named by `adapter.class` in svc-queue's config. Each backend's module (and its client: SQLite,
 * BullMQ with Redis, amqplib, the bridge's SDK client) is imported only when the config names it.
 */
import type { Logger } from 'pino';
import { QUEUE_ADAPTERS, type QueueConfig } from '../config.js';
import type { QueueBackend } from './types.js';

export async function createBackend(config: QueueConfig, logger: Logger): Promise<QueueBackend> {
  const queue_configs = config.queue_configs;
  const a = config.adapter;
  switch (a.class) {
    case QUEUE_ADAPTERS.builtin: {
      const { BuiltinQueueAdapter } = await import('./builtin.js');
      return new BuiltinQueueAdapter({
        ...a.config,
        queue_configs,
        onStoreError: (err) => logger.error({ err }, 'queue store write failed; new enqueues are refused'),
        onStartup: (fields, message) => logger.info(fields, message),
      });
    }
    case QUEUE_ADAPTERS.kvserver: {
      const { KvserverAdapter } = await import('./bullmq.js');
      return new KvserverAdapter({ ...a.config, queue_configs, onWarning: (msg) => logger.warn(msg) });
    }
    case QUEUE_ADAPTERS.broker: {
      const { BrokerAdapter } = await import('./rabbitmq.js');
      return new BrokerAdapter({ ...a.config, queue_configs });
    }
    case QUEUE_ADAPTERS.bridge: {
      const { BridgeQueueAdapter } = await import('./bridge.js');
      return new BridgeQueueAdapter({ bridge_url: a.config.bridge_url, logger });
    }
  }
}
