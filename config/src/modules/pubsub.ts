/**
 * `modules::pubsub::PubSubModule` (engine module): named-event fan-out (docs/config.md,
 * `modules::pubsub::PubSubModule`).
 */
import { z } from 'zod';
import { adapterSchema, kvserverUrlSchema } from '@svc/config-kit';

export const PUBSUB_ADAPTERS = {
  local: 'modules::pubsub::LocalAdapter',
  kvserver: 'modules::pubsub::KvserverAdapter',
} as const;

/** `kvserver_url` is the documented key; `channel_prefix` (svc addition) separates deployments that share one Redis. */
export const kvserverPubSubConfigSchema = z
  .object({
    kvserver_url: kvserverUrlSchema,
    channel_prefix: z
      .string()
      .min(1)
      .default('svc:pubsub:')
      .describe('Prefix of the Redis channels (svc addition), so deployments that share one Redis stay apart.'),
  })
  .strict();

export const pubsubAdapterSchema = z.discriminatedUnion('class', [
  adapterSchema(PUBSUB_ADAPTERS.local, z.object({}).strict()),
  adapterSchema(PUBSUB_ADAPTERS.kvserver, kvserverPubSubConfigSchema),
]);

export const pubsubConfigSchema = z
  .object({
    adapter: pubsubAdapterSchema.describe('Where events travel: `class` picks the adapter (one of the classes below).'),
  })
  .strict();

export type PubSubAdapterConfig = z.infer<typeof pubsubAdapterSchema>;
export type PubSubConfig = z.infer<typeof pubsubConfigSchema>;
