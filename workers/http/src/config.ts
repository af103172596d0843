/**
 * svc-http's config: the `config:` object of `modules::api::RestApiModule` / `svc-http` (docs/config.md,
 * `modules::api::RestApiModule`). The engine validates it with this schema at start-up (@svc/config's catalogue imports
 * it from `@svc/worker-http/config`) and the worker reads it with the same schema.
 */
import { z } from 'zod';
import { portSchema, positiveIntSchema, readModuleConfig } from '@svc/config-kit';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'] as const;

export const corsConfigSchema = z
  .object({
    allowed_origins: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Origins that get CORS headers; `*` is any, empty is none. Without a `cors` key at all, CORS is permissive (`*`).',
      ),
    allowed_methods: z
      .array(z.enum(HTTP_METHODS))
      .default([...HTTP_METHODS])
      .describe('Methods listed in preflight answers.'),
  })
  .strict();

export const httpConfigSchema = z
  .object({
    port: portSchema.default(3111).describe('Listen port of the REST server (0 picks a free one).'),
    host: z.string().min(1).default('0.0.0.0').describe('Listen address of the REST server.'),
    default_timeout: positiveIntSchema.default(30000).describe('Maximum time (ms) before an HTTP request times out.'),
    concurrency_request_limit: positiveIntSchema
      .default(1024)
      .describe('Maximum concurrent HTTP requests; above it the server answers 503.'),
    cors: corsConfigSchema.optional().describe('CORS answers of the REST server.'),
    body_limit_bytes: positiveIntSchema
      .default(1024 * 1024)
      .describe('Largest accepted request body; above it the server answers 413.'),
  })
  .strict();

export type HttpConfig = z.infer<typeof httpConfigSchema>;
export type CorsConfig = z.infer<typeof corsConfigSchema>;

/** Reads `--config <file>` or `SVC_MODULE_CONFIG`; exits with a message naming the bad key otherwise. */
export function readHttpConfig(): HttpConfig {
  return readModuleConfig('svc-http', httpConfigSchema);
}
