/**
 * `modules::http_functions::HttpFunctionsModule` (engine module): outbound HTTP for functions registered with an
 * HTTP invocation config, under a URL policy (SPEC.md "HTTP Functions module").
 */
import { z } from 'zod';

export const httpFunctionsSecuritySchema = z
  .object({
    /** URL patterns allowed; `*` allows all; wildcards in host and path. Empty: nothing is allowed. */
    url_allowlist: z.array(z.string().min(1)).default([]),
    /** Blocks private and local ranges (10.x, 172.16-31.x, 192.168.x, localhost, ...). */
    block_private_ips: z.boolean().default(true),
    require_https: z.boolean().default(true),
  })
  .strict();

export const httpFunctionsConfigSchema = z.object({ security: httpFunctionsSecuritySchema.prefault({}) }).strict();

export type HttpFunctionsSecurity = z.infer<typeof httpFunctionsSecuritySchema>;
export type HttpFunctionsConfig = z.infer<typeof httpFunctionsConfigSchema>;
