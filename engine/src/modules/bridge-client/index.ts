/** `modules::bridge_client::BridgeClientModule` factory: checks the remote URL and builds the module. */
import type { BridgeClientConfig, DeepReadonly } from '@svc/config';
import type { EngineModule } from '../module.js';
import { BridgeClientModule } from './bridge-client-module.js';

export { BridgeClientModule, BRIDGE_CLIENT_CLASS } from './bridge-client-module.js';
export { BridgeErrors } from './bridge-errors.js';
export { HOPS_BAGGAGE_KEY, MAX_BRIDGE_HOPS, readHops, withHops } from './hops.js';

/**
 * `config` is the module's resolved config, validated once by the config pipeline (`loadConfig`) with its defaults
 * applied; it is taken as it is.
 */
export function createBridgeClientModule(resolved: DeepReadonly<BridgeClientConfig>): EngineModule {
  let url: URL;
  try {
    url = new URL(resolved.url);
  } catch {
    throw new Error(`bridge client config.url: '${resolved.url}' is not a URL; expected ws://host:port`);
  }
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') {
    throw new Error(`bridge client config.url: '${resolved.url}' must start with ws:// or wss://`);
  }
  return new BridgeClientModule(resolved);
}
