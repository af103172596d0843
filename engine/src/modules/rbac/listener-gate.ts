/**
 * A listener's gate (transport/listener-gate.ts): with `rbac.auth_function_id` the auth function decides each
 * connection's session from its upgrade request; without it every connection gets the permissive session (and
 * the listener's `expose_functions` and middleware still apply).
 */
import type { ListenerGate, UpgradeInfo, Admission } from '../../transport/listener-gate.js';
import { parseAuthResult } from './auth-result.js';
import { GatedSession } from './gated-session.js';
import type { ListenerAccess } from './policy.js';
import type { RbacHost } from './host.js';
import { PERMISSIVE_SESSION } from './policy.js';
import { ModuleErrorCode } from '../../error-codes.js';

export const AUTH_ERROR = ModuleErrorCode.AuthError;

export function createListenerGate(access: ListenerAccess, host: RbacHost): ListenerGate {
  const authFunctionId = access.rbac?.auth_function_id;
  return {
    async admit(info: UpgradeInfo): Promise<Admission> {
      if (authFunctionId === undefined)
        return { ok: true, session: new GatedSession(PERMISSIVE_SESSION, access, host) };
      const input = { headers: info.headers, query_params: info.queryParams, ip_address: info.ipAddress };
      const outcome = await host.call(authFunctionId, input);
      if (outcome.error !== undefined) {
        return { ok: false, error: { code: AUTH_ERROR, message: `${authFunctionId}: ${outcome.error.message}` } };
      }
      const parsed = parseAuthResult(outcome.result);
      if (!parsed.ok) return { ok: false, error: { code: AUTH_ERROR, message: parsed.message } };
      return { ok: true, session: new GatedSession(parsed.session, access, host) };
    },
  };
}

/** True when a listener needs a gate at all (otherwise frames go straight to the core). */
export function needsGate(access: Omit<ListenerAccess, 'listener'>): boolean {
  return access.rbac !== undefined || access.middlewareFunctionId !== undefined;
}
