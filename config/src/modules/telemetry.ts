/** `modules::telemetry::TelemetryModule` (engine module): anonymous usage heartbeat, opt-out (SPEC.md "Telemetry"). */
import { z } from 'zod';
import { positiveIntSchema } from './common.js';

export const telemetryConfigSchema = z
  .object({
    enabled: z.boolean().default(true),
    /** Secret: redacted in every message. */
    sdk_api_key: z.string().min(1).optional(),
    heartbeat_interval_secs: positiveIntSchema.default(21600),
  })
  .strict();

export type TelemetryConfig = z.infer<typeof telemetryConfigSchema>;
