/** svc-queue's config (SPEC.md "Queue module") and the backend it selects. */
import { QUEUE_ADAPTERS, queueConfigSchema, readModuleConfig, type QueueConfig } from '@svc/config';
import type { Logger } from 'pino';
import { BuiltinQueueAdapter } from './adapters/builtin.js';
import { KvserverAdapter } from './adapters/bullmq.js';
import { BrokerAdapter } from './adapters/rabbitmq.js';
import type { QueueBackend } from './adapters/types.js';

export type { QueueConfig };

export function readQueueConfig(): QueueConfig {
  return readModuleConfig('svc-queue', queueConfigSchema);
}

export class UnsupportedAdapterError extends Error {
  readonly code = 'unsupported_adapter';
}

export function createBackend(config: QueueConfig, logger: Logger): QueueBackend {
  const queue_configs = config.queue_configs;
  const a = config.adapter;
  switch (a.class) {
    case QUEUE_ADAPTERS.builtin:
      return new BuiltinQueueAdapter({
        ...a.config,
        queue_configs,
        onStoreError: (err) => logger.error({ err }, 'queue store write failed; new enqueues are refused'),
      });
    case QUEUE_ADAPTERS.kvserver:
      return new KvserverAdapter({ ...a.config, queue_configs, onWarning: (msg) => logger.warn(msg) });
    case QUEUE_ADAPTERS.broker:
      return new BrokerAdapter({ ...a.config, queue_configs });
    default:
      throw new UnsupportedAdapterError(
        `adapter '${a.class}' is not supported by svc-queue; use ${QUEUE_ADAPTERS.builtin}, ` +
          `${QUEUE_ADAPTERS.kvserver} or ${QUEUE_ADAPTERS.broker}`,
      );
  }
}
