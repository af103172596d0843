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

export const stateAdapterSchema = z.discriminatedUnion('class', [
  adapterSchema(STATE_ADAPTERS.kvStore, kvStoreConfigSchema),
  adapterSchema(STATE_ADAPTERS.kvserver, kvserverConfigSchema),
  adapterSchema(STATE_ADAPTERS.bridge, bridgeConfigSchema),
]);

export const stateConfigSchema = z
  .object({
    adapter: stateAdapterSchema,
    /** Largest accepted value (serialized JSON bytes); a bigger `state::set` fails with a clear error. */
    max_value_bytes: positiveIntSchema.default(1024 * 1024),
  })
  .strict();

export type StateAdapterConfig = z.infer<typeof stateAdapterSchema>;
export type StateConfig = z.infer<typeof stateConfigSchema>;
