/**
 * `modules::http_functions::HttpFunctionsModule` (engine module): outbound HTTP for functions registered with an HTTP
 * invocation config, under a URL policy (docs/config.md, `modules::http_functions::HttpFunctionsModule`).
 */
import { z } from 'zod';
import { positiveIntSchema } from '@svc/config-kit';

export const httpFunctionsSecuritySchema = z
  .object({
    url_allowlist: z
      .array(z.string().min(1))
      .default([])
      .describe('URL patterns allowed; `*` allows all; wildcards in host and path. Empty: nothing is allowed.'),
    block_private_ips: z
      .boolean()
      .default(true)
      .describe('Blocks private and local ranges (10.x, 172.16-31.x, 192.168.x, localhost, ...).'),
    require_https: z.boolean().default(true).describe('Refuses `http://` URLs (and redirects to them).'),
  })
  .strict();

export const httpFunctionsConfigSchema = z
  .object({
    security: httpFunctionsSecuritySchema.prefault({}),
    default_timeout_ms: positiveIntSchema
      .default(30000)
      .describe('Outbound timeout when a registration has no `timeout_ms` (all redirect hops together).'),
    max_response_bytes: positiveIntSchema
      .default(10 * 1024 * 1024)
      .describe('Largest response body read from an HTTP function; above it the call fails with `response_too_large`.'),
    max_redirects: z
      .number()
      .int()
      .min(0)
      .max(20)
      .default(5)
      .describe('Redirect hops followed, each checked against the policy; one more fails with `too_many_redirects`.'),
  })
  .strict();

export type HttpFunctionsSecurity = z.infer<typeof httpFunctionsSecuritySchema>;
export type HttpFunctionsConfig = z.infer<typeof httpFunctionsConfigSchema>;
