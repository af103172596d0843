import { HttpFunctionsModule, type HttpFunctionsModuleConfig } from './module.js';

export { HttpFunctionsModule, HTTP_FUNCTIONS_MODULE_CLASS, type HttpFunctionsModuleConfig } from './module.js';
export { UrlPolicy, PolicyError, type SecurityPolicy } from './security/url-policy.js';
export { checkIp } from './security/ip-policy.js';
export { resolveChecked, type Resolver } from './security/guarded-connector.js';
export { sign as signHmac, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './auth.js';

/** Factory used by engine/src/modules/index.ts (class → module), with the entry's resolved config as it is. */
export function createHttpFunctionsModule(config: HttpFunctionsModuleConfig): HttpFunctionsModule {
  return new HttpFunctionsModule(config);
}
