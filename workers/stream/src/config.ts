/**
 * svc-stream's config: the `config:` object of `modules::stream::StreamModule` / `svc-stream` (docs/config.md,
 * `modules::stream::StreamModule`). The engine validates it with this schema at start-up (@svc/config's catalogue
 * imports it from `@svc/worker-stream/config`) and the worker reads it with the same schema.
 */
import { z } from 'zod';
import {
  adapterSchema,
  DEFAULT_MAX_STORE_BYTES,
  bridgeConfigSchema,
  kvStoreShape,
  nonNegativeIntSchema,
  portSchema,
  positiveIntSchema,
  kvserverUrlSchema,
  readModuleConfig,
  requireFilePath,
} from '@svc/config-kit';

export const STREAM_ADAPTERS = {
  kvStore: 'modules::stream::adapters::KvStore',
  kvserver: 'modules::stream::adapters::KvserverAdapter',
  bridge: 'modules::stream::adapters::Bridge',
} as const;

/** Like the shared KvStore keys, but `save_interval_ms: 0` is allowed: it writes every change before answering. */
export const streamKvStoreConfigSchema = z
  .object({
    ...kvStoreShape,
    save_interval_ms: nonNegativeIntSchema
      .default(5000)
      .describe('How often changes are written to the file, in ms; 0 writes each change before answering.'),
    max_store_bytes: positiveIntSchema
      .default(DEFAULT_MAX_STORE_BYTES)
      .describe(
        'Items held at most (ids and values as JSON text, bytes counted as characters): every item lives in memory, file or not. A `stream::set` or `stream::update` that would go past it is refused with `stream_store_full`.',
      ),
  })
  .strict()
  .superRefine(requireFilePath);

export const streamKvserverConfigSchema = z
  .object({
    kvserver_url: kvserverUrlSchema,
    key_prefix: z
      .string()
      .default('')
      .describe('Prepended to every key and to the events channel, so several deployments can share one Redis.'),
  })
  .strict();

export const streamAdapterSchema = z.discriminatedUnion('class', [
  adapterSchema(STREAM_ADAPTERS.kvStore, streamKvStoreConfigSchema),
  adapterSchema(STREAM_ADAPTERS.kvserver, streamKvserverConfigSchema),
  adapterSchema(STREAM_ADAPTERS.bridge, bridgeConfigSchema),
]);

export const streamConfigSchema = z
  .object({
    port: portSchema.default(3112).describe('Listen port of the client WebSocket server (0 picks a free one).'),
    host: z.string().min(1).default('0.0.0.0').describe('Listen address of the client WebSocket server.'),
    auth_function: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe('Function validating connection and subscription requests; null or omitted allows all.'),
    adapter: streamAdapterSchema.describe(
      'The store: `class` picks it (one of the classes below), `config` holds its keys.',
    ),
    auth_timeout_ms: positiveIntSchema
      .default(5000)
      .describe('How long the auth function may take before the connection is refused (503).'),
    join_timeout_ms: positiveIntSchema
      .default(5000)
      .describe('How long each `stream:join` handler may take before the join is refused.'),
    max_message_bytes: positiveIntSchema
      .default(64 * 1024)
      .describe('Largest client frame; a bigger one closes the socket with 1009.'),
    max_buffered_bytes: positiveIntSchema
      .default(4 * 1024 * 1024)
      .describe(
        "Cap on a client's unsent data; a client that stops reading past it is disconnected (1013). One larger frame (a large group's sync) still goes to a client with nothing waiting; the cap then counts on top of it.",
      ),
    max_messages_per_second: positiveIntSchema
      .default(100)
      .describe('Client frames per second (burst of the same size); beyond it the socket is closed with 1008.'),
    max_subscriptions_per_connection: positiveIntSchema
      .default(1024)
      .describe('Subscriptions one socket may hold; a join beyond it closes the socket with 1008.'),
    ping_interval_ms: positiveIntSchema
      .default(30_000)
      .describe('Interval of server pings; a client that misses `max_missed_pongs` in a row is dropped.'),
    max_missed_pongs: positiveIntSchema
      .default(2)
      .describe('Server pings a client may leave unanswered in a row before it is dropped.'),
    handshake_timeout_ms: positiveIntSchema
      .default(10_000)
      .describe('Time a client has to send its complete upgrade request.'),
    allowed_origins: z
      .array(z.string().min(1))
      .nullable()
      .default(null)
      .describe('`Origin` values allowed to connect (403 otherwise); null allows any, and requests without Origin.'),
  })
  .strict();

export type StreamAdapterConfig = z.infer<typeof streamAdapterSchema>;
export type StreamConfig = z.infer<typeof streamConfigSchema>;

/** Reads `--config <file>` or `SVC_MODULE_CONFIG`; exits with a message naming the bad key otherwise. */
export function readStreamConfig(): StreamConfig {
  return readModuleConfig('svc-stream', streamConfigSchema);
}
