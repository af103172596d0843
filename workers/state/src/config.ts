/**
 * svc-state's config: the `config:` object of `modules::state::StateModule` / `svc-state` (docs/config.md,
 * `modules::state::StateModule`). The engine validates it with this schema at start-up (@svc/config's catalogue imports
 * it from `@svc/worker-state/config`) and the worker reads it with the same schema, so the two never disagree.
 */
import { z } from 'zod';
import {
  adapterSchema,
  DEFAULT_MAX_STORE_BYTES,
  bridgeConfigSchema,
  kvserverConfigSchema,
  kvStoreShape,
  positiveIntSchema,
  readModuleConfig,
  requireFilePath,
} from '@svc/config-kit';

export const STATE_ADAPTERS = {
  kvStore: 'modules::state::adapters::KvStore',
  kvserver: 'modules::state::adapters::KvserverAdapter',
  bridge: 'modules::state::adapters::Bridge',
} as const;

export const stateKvStoreConfigSchema = z
  .object({
    ...kvStoreShape,
    max_store_bytes: positiveIntSchema
      .default(DEFAULT_MAX_STORE_BYTES)
      .describe(
        'With `store_method: in_memory`: entries held at most (scopes, keys and values as JSON text, bytes counted as characters, plus a fixed amount per entry). A write that would go past it fails with `SET_ERROR` / `UPDATE_ERROR` carrying `store_full`; deletes and writes that shrink an entry are always taken. A `file_based` store keeps its entries on disk.',
      ),
  })
  .strict()
  .superRefine(requireFilePath);

/** Redis keys of svc-state: `<key_prefix>scope:<scope>` hashes and the `<key_prefix>scopes` set. */
export const stateKvserverConfigSchema = kvserverConfigSchema
  .extend({
    key_prefix: z
      .string()
      .default('svc:state:')
      .describe('Namespaces every key, so several deployments (or test runs) can share one Redis.'),
  })
  .strict();

export const stateAdapterSchema = z.discriminatedUnion('class', [
  adapterSchema(STATE_ADAPTERS.kvStore, stateKvStoreConfigSchema),
  adapterSchema(STATE_ADAPTERS.kvserver, stateKvserverConfigSchema),
  adapterSchema(STATE_ADAPTERS.bridge, bridgeConfigSchema),
]);

export const stateConfigSchema = z
  .object({
    adapter: stateAdapterSchema.describe(
      'The store: `class` picks it (one of the classes below), `config` holds its keys.',
    ),
    max_value_bytes: positiveIntSchema
      .default(1024 * 1024)
      .describe('Largest accepted value (serialized JSON bytes); a bigger write fails with `VALUE_TOO_LARGE`.'),
    max_pending_triggers: positiveIntSchema
      .default(10_000)
      .describe(
        'Trigger deliveries that may wait (queued or running) at once. When reached, writes wait for room before they commit (backpressure); no change event is dropped.',
      ),
    trigger_timeout_ms: positiveIntSchema
      .default(30_000)
      .describe('How long one trigger delivery (condition + handler) may take before it is given up and logged.'),
  })
  .strict();

export type StateAdapterConfig = z.infer<typeof stateAdapterSchema>;
export type StateConfig = z.infer<typeof stateConfigSchema>;

/** Reads `--config <file>` or `SVC_MODULE_CONFIG`; exits with a message naming the bad key otherwise. */
export function readStateConfig(): StateConfig {
  return readModuleConfig('svc-state', stateConfigSchema);
}
