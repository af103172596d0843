/** svc-http's config: the `svc-http` module entry (SPEC.md "REST API module"), validated by @svc/config. */
import { httpConfigSchema, readModuleConfig, type HttpConfig } from '@svc/config';

export { httpConfigSchema, type HttpConfig };

export function readHttpConfig(): HttpConfig {
  return readModuleConfig('svc-http', httpConfigSchema);
}
