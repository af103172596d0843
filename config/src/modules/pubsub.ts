/** `modules::pubsub::PubSubModule` (engine module): named-event fan-out (SPEC.md "PubSub module"). */
import { z } from 'zod';
import { adapterSchema, kvserverConfigSchema } from './common.js';

export const PUBSUB_ADAPTERS = {
  local: 'modules::pubsub::LocalAdapter',
  kvserver: 'modules::pubsub::KvserverAdapter',
} as const;

export const pubsubAdapterSchema = z.discriminatedUnion('class', [
  adapterSchema(PUBSUB_ADAPTERS.local, z.object({}).strict()),
  adapterSchema(PUBSUB_ADAPTERS.kvserver, kvserverConfigSchema),
]);

export const pubsubConfigSchema = z.object({ adapter: pubsubAdapterSchema }).strict();

export type PubSubAdapterConfig = z.infer<typeof pubsubAdapterSchema>;
export type PubSubConfig = z.infer<typeof pubsubConfigSchema>;
