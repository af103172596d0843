/**
 * The mutation `state::update` runs in the store, built on the SDK's update ops (README.md, "Update ops"; the same
 * rules as `stream::update`).
 */
import { applyUpdateOps, type UpdateOp, type UpdateOpError } from '@svc/sdk';
import type { JsonValue, Mutation } from './adapters/types.js';

/**
 * Applies the ops; writes nothing when no op succeeded (an update whose every op failed, or that has no ops, is not a
 * committed change and fires no trigger). `onErrors` receives the op errors of the attempt that was kept (optimistic
 * stores may run the mutation more than once).
 */
export function updateMutation(ops: readonly UpdateOp[], onErrors?: (errors: UpdateOpError[]) => void): Mutation {
  const mutate = (current: JsonValue | undefined): JsonValue | undefined => {
    const { value, errors, changed } = applyUpdateOps(current, ops);
    onErrors?.(errors);
    return changed ? value : undefined;
  };
  return Object.assign(mutate, { ops });
}
