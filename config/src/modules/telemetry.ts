/**
 * `modules::telemetry::TelemetryModule` (engine module): anonymous usage heartbeat, opt-out (README.md, "Telemetry").
 */
import { z } from 'zod';
import { positiveIntSchema } from '@svc/config-kit';

export const DEFAULT_TELEMETRY_ENDPOINT = 'https://telemetry.svc.dev/v1/heartbeat';

export const telemetryConfigSchema = z
  .object({
    enabled: z.boolean().default(true).describe('Sends the anonymous usage heartbeat; false opts out.'),
    sdk_api_key: z.string().min(1).optional().describe('Secret: redacted in every message.'),
    heartbeat_interval_secs: positiveIntSchema.default(21600).describe('Seconds between two heartbeats.'),
    endpoint: z.string().url().default(DEFAULT_TELEMETRY_ENDPOINT).describe('Where the heartbeat is POSTed (JSON).'),
  })
  .strict();

/**
 * The environment's opt-out: `SVC_TELEMETRY_DISABLED` or `DO_NOT_TRACK` set to anything but empty, `0` or
 * `false` turns the heartbeat off whatever the config says.
 */
export function telemetryOptedOut(env: NodeJS.ProcessEnv = process.env): boolean {
  const on = (v: string | undefined): boolean => v !== undefined && !['', '0', 'false'].includes(v.toLowerCase());
  return on(env.SVC_TELEMETRY_DISABLED) || on(env.DO_NOT_TRACK);
}

export type TelemetryConfig = z.infer<typeof telemetryConfigSchema>;
