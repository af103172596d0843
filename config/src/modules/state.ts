/** `modules::state::StateModule` / `svc-state`: persistent key-value storage (SPEC.md "State module"). */
import { z } from 'zod';
import {
  adapterSchema,
  bridgeConfigSchema,
  kvserverConfigSchema,
  kvStoreConfigSchema,
  positiveIntSchema,
} from './common.js';

export const STATE_ADAPTERS = {
  kvStore: 'modules::state::adapters::KvStore',
  kvserver: 'modules::state::adapters::KvserverAdapter',
  bridge: 'modules::state::adapters::Bridge',
} as const;

/** Redis keys of svc-state: `<key_prefix>scope:<scope>` hashes and the `<key_prefix>scopes` set. */
export const stateKvserverConfigSchema = kvserverConfigSchema
  .extend({
    /** Namespaces every key, so several deployments (or test runs) can share one Redis. */
    key_prefix: z.string().default('svc:state:'),
  })
  .strict();

export const stateAdapterSchema = z.discriminatedUnion('class', [
  adapterSchema(STATE_ADAPTERS.kvStore, kvStoreConfigSchema),
  adapterSchema(STATE_ADAPTERS.kvserver, stateKvserverConfigSchema),
  adapterSchema(STATE_ADAPTERS.bridge, bridgeConfigSchema),
]);

export const stateConfigSchema = z
  .object({
    adapter: stateAdapterSchema,
    /** Largest accepted value (serialized JSON bytes); a bigger write fails with `VALUE_TOO_LARGE`. */
    max_value_bytes: positiveIntSchema.default(1024 * 1024),
    /**
     * Trigger deliveries that may wait (queued or running) at once. When reached, writes wait for room before they
     * commit (backpressure); no change event is dropped.
     */
    max_pending_triggers: positiveIntSchema.default(10_000),
    /** How long one trigger delivery (condition + handler) may take before it is given up and logged. */
    trigger_timeout_ms: positiveIntSchema.default(30_000),
  })
  .strict();

export type StateAdapterConfig = z.infer<typeof stateAdapterSchema>;
export type StateConfig = z.infer<typeof stateConfigSchema>;
