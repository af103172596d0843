/**
 * `engine::register_trigger` / `engine::unregister_trigger` (docs/compatibility.md, "Functions"): bindings made through
 * a function call are the engine's own (registered by its in-process worker), so they outlive the caller's connection
 * and go away only through `engine::unregister_trigger` (or an engine restart). Deliberately ownerless: a CLI's short
 * connection or a restarting agent must not take its bindings with it.
 */
import type { SvcClient, TriggerRef } from '@svc/sdk';
import { asArgs, invalid, optString } from './args.js';

const REGISTER = 'engine::register_trigger';
const UNREGISTER = 'engine::unregister_trigger';

export class OwnerlessTriggers {
  private readonly refs = new Map<string, TriggerRef>();

  constructor(private readonly client: SvcClient) {}

  register(payload: unknown): { id: string } {
    const args = asArgs(payload, REGISTER);
    const type = optString(args, 'trigger_type', REGISTER);
    const functionId = optString(args, 'function_id', REGISTER);
    if (!type) throw invalid(REGISTER, '"trigger_type" is required (a non-empty string)');
    if (!functionId) throw invalid(REGISTER, '"function_id" is required (a non-empty string)');
    const metadata = args.metadata ?? undefined;
    const ref = this.client.registerTrigger({
      type,
      function_id: functionId,
      config: args.config ?? {},
      ...(metadata !== null && metadata !== undefined ? { metadata } : {}),
    });
    this.refs.set(ref.id, ref);
    return { id: ref.id };
  }

  /** Idempotent: `removed` says whether a binding made by `engine::register_trigger` had that id. */
  unregister(payload: unknown): { removed: boolean } {
    const args = asArgs(payload, UNREGISTER);
    const id = optString(args, 'id', UNREGISTER);
    if (!id) throw invalid(UNREGISTER, '"id" is required (a non-empty string)');
    const ref = this.refs.get(id);
    if (ref === undefined) return { removed: false };
    this.refs.delete(id);
    ref.unregister();
    return { removed: true };
  }
}

export const OWNERLESS_FUNCTIONS = {
  [REGISTER]: 'Bind a function to a trigger type; the binding outlives the caller. Returns {id}',
  [UNREGISTER]: 'Remove a binding made by engine::register_trigger. Idempotent; returns {removed}',
} as const;
