/** `modules::bridge_client::BridgeClientModule` (engine module): cross-engine invocation (SPEC.md "Bridge client"). */
import { z } from 'zod';
import { positiveIntSchema } from './common.js';

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
    /** WebSocket URL of the remote engine. */
    url: z.string().min(1),
    service_id: z.string().min(1),
    service_name: z.string().min(1).optional(),
    expose: z.array(bridgeExposeSchema).default([]),
    forward: z.array(bridgeForwardSchema).default([]),
  })
  .strict();

export type BridgeClientConfig = z.infer<typeof bridgeClientConfigSchema>;
