/**
 * `modules::bridge_client::BridgeClientModule` (engine module): cross-engine invocation (docs/config.md,
 * `modules::bridge_client::BridgeClientModule`).
 */
import { z } from 'zod';
import { positiveIntSchema } from '@svc/config-kit';

export const bridgeExposeSchema = z
  .object({ local_function: z.string().min(1), remote_function: z.string().min(1).optional() })
  .strict();

export const bridgeForwardSchema = z
  .object({
    local_function: z.string().min(1),
    remote_function: z.string().min(1),
    timeout_ms: positiveIntSchema.default(5000),
  })
  .strict();

export const bridgeClientConfigSchema = z
  .object({
    url: z.string().min(1).describe('WebSocket URL of the remote engine.'),
    service_id: z.string().min(1).describe('The id this engine announces to the remote one.'),
    service_name: z.string().min(1).optional().describe('A readable name announced with `service_id`.'),
    expose: z
      .array(bridgeExposeSchema)
      .default([])
      .describe('Local functions the remote engine may call (`local_function`, optional `remote_function` name).'),
    forward: z
      .array(bridgeForwardSchema)
      .default([])
      .describe('Remote functions registered here under `local_function`, each call forwarded with its `timeout_ms`.'),
  })
  .strict();

export type BridgeClientConfig = z.infer<typeof bridgeClientConfigSchema>;
