/** svc-state's config: the `modules::state::StateModule` schema of @svc/config (SPEC.md "State module"). */
import { readModuleConfig, stateConfigSchema, type StateConfig } from '@svc/config';

export type { StateConfig };

/** Reads `--config <file>` or `SVC_MODULE_CONFIG`; exits with a message naming the bad key otherwise. */
export function readStateConfig(): StateConfig {
  return readModuleConfig('svc-state', stateConfigSchema);
}
