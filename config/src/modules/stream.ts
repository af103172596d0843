/** `modules::stream::StreamModule` / `svc-stream`: real-time WebSocket pub/sub (SPEC.md "Stream module"). */
import { z } from 'zod';
import {
  adapterSchema,
  bridgeConfigSchema,
  kvStoreShape,
  nonNegativeIntSchema,
  portSchema,
  positiveIntSchema,
  requireFilePath,
} from './common.js';

export const STREAM_ADAPTERS = {
  kvStore: 'modules::stream::adapters::KvStore',
  kvserver: 'modules::stream::adapters::KvserverAdapter',
  bridge: 'modules::stream::adapters::Bridge',
} as const;

/** Like the shared KvStore keys, but `save_interval_ms: 0` is allowed: it writes every change before answering. */
export const streamKvStoreConfigSchema = z
  .object({ ...kvStoreShape, save_interval_ms: nonNegativeIntSchema.default(5000) })
  .strict()
  .superRefine(requireFilePath);

export const streamKvserverConfigSchema = z
  .object({
    kvserver_url: z.string().min(1),
    /** Prepended to every key and to the events channel, so several deployments can share one Redis. */
    key_prefix: z.string().default(''),
  })
  .strict();

export const streamAdapterSchema = z.discriminatedUnion('class', [
  adapterSchema(STREAM_ADAPTERS.kvStore, streamKvStoreConfigSchema),
  adapterSchema(STREAM_ADAPTERS.kvserver, streamKvserverConfigSchema),
  adapterSchema(STREAM_ADAPTERS.bridge, bridgeConfigSchema),
]);

export const streamConfigSchema = z
  .object({
    port: portSchema.default(3112),
    host: z.string().min(1).default('0.0.0.0'),
    /** Function validating connection and subscription requests; null or omitted allows all. */
    auth_function: z.string().min(1).nullable().default(null),
    adapter: streamAdapterSchema,
    /** How long the auth function may take before the connection is refused (503). */
    auth_timeout_ms: positiveIntSchema.default(5000),
    /** How long each `stream:join` handler may take before the join is refused. */
    join_timeout_ms: positiveIntSchema.default(5000),
    /** Largest client frame; a bigger one closes the socket with 1009. */
    max_message_bytes: positiveIntSchema.default(64 * 1024),
    /** Cap on a client's unsent data; a client that stops reading past it is disconnected (1013). */
    max_buffered_bytes: positiveIntSchema.default(4 * 1024 * 1024),
    /** Client frames per second (burst of the same size); beyond it the socket is closed with 1008. */
    max_messages_per_second: positiveIntSchema.default(100),
    /** Subscriptions one socket may hold; a join beyond it closes the socket with 1008. */
    max_subscriptions_per_connection: positiveIntSchema.default(1024),
    /** Interval of server pings; a client that misses `max_missed_pongs` in a row is dropped. */
    ping_interval_ms: positiveIntSchema.default(30_000),
    max_missed_pongs: positiveIntSchema.default(2),
    /** Time a client has to send its complete upgrade request. */
    handshake_timeout_ms: positiveIntSchema.default(10_000),
    /** `Origin` values allowed to connect (403 otherwise); null allows any, and requests without Origin. */
    allowed_origins: z.array(z.string().min(1)).nullable().default(null),
  })
  .strict()
  .superRefine((config, ctx) => {
    // Part of the spec, not built yet: refused here so `svc` names the problem instead of the worker crash-looping.
    if (config.adapter.class === STREAM_ADAPTERS.bridge) {
      ctx.addIssue({
        code: 'custom',
        path: ['adapter', 'class'],
        message: `${STREAM_ADAPTERS.bridge} is not supported by svc-stream yet; use ${STREAM_ADAPTERS.kvStore} or ${STREAM_ADAPTERS.kvserver}`,
      });
    }
  });

export type StreamAdapterConfig = z.infer<typeof streamAdapterSchema>;
export type StreamConfig = z.infer<typeof streamConfigSchema>;
