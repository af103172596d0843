/** `modules::stream::StreamModule` / `svc-stream`: real-time WebSocket pub/sub (SPEC.md "Stream module"). */
import { z } from 'zod';
import { adapterSchema, bridgeConfigSchema, kvserverConfigSchema, kvStoreConfigSchema, portSchema } from './common.js';

export const STREAM_ADAPTERS = {
  kvStore: 'modules::stream::adapters::KvStore',
  kvserver: 'modules::stream::adapters::KvserverAdapter',
  bridge: 'modules::stream::adapters::Bridge',
} as const;

export const streamAdapterSchema = z.discriminatedUnion('class', [
  adapterSchema(STREAM_ADAPTERS.kvStore, kvStoreConfigSchema),
  adapterSchema(STREAM_ADAPTERS.kvserver, kvserverConfigSchema),
  adapterSchema(STREAM_ADAPTERS.bridge, bridgeConfigSchema),
]);

export const streamConfigSchema = z
  .object({
    port: portSchema.default(3112),
    host: z.string().min(1).default('0.0.0.0'),
    /** Function validating connection and subscription requests; null or omitted allows all. */
    auth_function: z.string().min(1).nullable().default(null),
    adapter: streamAdapterSchema,
  })
  .strict();

export type StreamAdapterConfig = z.infer<typeof streamAdapterSchema>;
export type StreamConfig = z.infer<typeof streamConfigSchema>;
