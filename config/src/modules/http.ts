/** `modules::api::RestApiModule` / `svc-http`: the REST server for HTTP triggers (SPEC.md "REST API module"). */
import { z } from 'zod';
import { portSchema, positiveIntSchema } from './common.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'] as const;

export const corsConfigSchema = z
  .object({
    allowed_origins: z.array(z.string().min(1)).default([]),
    allowed_methods: z.array(z.enum(HTTP_METHODS)).default([...HTTP_METHODS]),
  })
  .strict();

export const httpConfigSchema = z
  .object({
    port: portSchema.default(3111),
    host: z.string().min(1).default('0.0.0.0'),
    /** Maximum time (ms) before an HTTP request times out. */
    default_timeout: positiveIntSchema.default(30000),
    /** Maximum concurrent HTTP requests; above it the server answers 503. */
    concurrency_request_limit: positiveIntSchema.default(1024),
    cors: corsConfigSchema.optional(),
    /** Largest accepted request body; above it the server answers 413. */
    body_limit_bytes: positiveIntSchema.default(1024 * 1024),
  })
  .strict();

export type HttpConfig = z.infer<typeof httpConfigSchema>;
export type CorsConfig = z.infer<typeof corsConfigSchema>;
