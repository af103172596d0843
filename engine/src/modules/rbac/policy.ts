/**
 * The worker manager's access rules as pure functions (no I/O, no engine state): which calls a session may make, what
 * an auth function's answer means, how a registration hook's answer rewrites or refuses a registration. docs/rbac.md is
 * the user-facing description, wire side included ("Sessions: the auth function", "Calls").
 */
import type { FunctionFilter, RbacConfig } from '@svc/config';

/** One listener's access rules, as its config gives them. */
export interface ListenerAccess {
  rbac: RbacConfig | undefined;
  middlewareFunctionId: string | undefined;
  /** For logs: which listener. */
  listener: string;
}

/** What one connection may do, decided once when it connects (from the auth function's AuthResult). */
export interface Session {
  allowedFunctions: ReadonlySet<string>;
  forbiddenFunctions: ReadonlySet<string>;
  /** undefined: every trigger type. */
  allowedTriggerTypes: ReadonlySet<string> | undefined;
  allowTriggerTypeRegistration: boolean;
  allowFunctionRegistration: boolean;
  /** Handed to the hooks and the middleware as `context`. */
  context: Record<string, unknown>;
  /** Function ids this session registers are stored as `<prefix>::<id>`. */
  functionRegistrationPrefix: string | undefined;
}

/** A connection without an auth function: every registration allowed, no per-session lists. */
export const PERMISSIVE_SESSION: Session = Object.freeze({
  allowedFunctions: new Set<string>(),
  forbiddenFunctions: new Set<string>(),
  allowedTriggerTypes: undefined,
  allowTriggerTypeRegistration: true,
  allowFunctionRegistration: true,
  context: {},
  functionRegistrationPrefix: undefined,
});

/**
 * Functions a worker needs to work at all (reporting its metadata, logs, baggage, channels). A session may call
 * them unless its auth result forbids them by name.
 */
export const INFRASTRUCTURE_FUNCTIONS: ReadonlySet<string> = new Set([
  'engine::channels::create',
  'engine::workers::register',
  'engine::log::info',
  'engine::log::warn',
  'engine::log::error',
  'engine::log::debug',
  'engine::log::trace',
  'engine::baggage::get',
  'engine::baggage::set',
  'engine::baggage::get_all',
]);

/** `*` matches any run of characters (also none); everything else is literal. */
export function wildcardMatch(pattern: string, value: string): boolean {
  if (pattern === '*') return true;
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === value;
  const first = parts[0] as string;
  const last = parts[parts.length - 1] as string;
  if (!value.startsWith(first) || value.length < first.length + last.length) return false;
  let pos = first.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const part = parts[i] as string;
    const found = value.indexOf(part, pos);
    if (found === -1) return false;
    pos = found + part.length;
  }
  return value.length - last.length >= pos && value.endsWith(last);
}

/** A metadata condition: a `match("…")` string is a wildcard on a string value; anything else must be equal. */
function metadataValueMatches(expected: unknown, actual: unknown): boolean {
  if (typeof expected === 'string') {
    const m = /^\s*match\((["'])(.*)\1\)\s*$/.exec(expected);
    if (m) return typeof actual === 'string' && wildcardMatch(m[2] as string, actual);
  }
  return deepEqual(expected, actual);
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

export function filterMatches(filter: FunctionFilter, functionId: string, metadata: unknown): boolean {
  if ('match' in filter) return wildcardMatch(filter.match, functionId);
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return false;
  const actual = metadata as Record<string, unknown>;
  return Object.entries(filter.metadata).every(
    ([key, expected]) => Object.hasOwn(actual, key) && metadataValueMatches(expected, actual[key]),
  );
}

export type CallVerdict = { allowed: true } | { allowed: false; message: string };

const ALLOWED: CallVerdict = { allowed: true };

/**
 * May this session call `functionId`? Order: forbidden by the session → no; allowed by the session → yes; an
 * infrastructure function → yes; no `rbac` on the listener → yes; an `expose_functions` entry matches → yes; else no.
 */
export function checkCall(
  session: Session,
  rbac: RbacConfig | undefined,
  functionId: string,
  metadata: unknown,
): CallVerdict {
  if (session.forbiddenFunctions.has(functionId)) {
    return { allowed: false, message: `function '${functionId}' not allowed (remove from rbac.forbidden_functions)` };
  }
  if (session.allowedFunctions.has(functionId) || INFRASTRUCTURE_FUNCTIONS.has(functionId)) return ALLOWED;
  if (rbac === undefined) return ALLOWED;
  if (rbac.expose_functions.some((f) => filterMatches(f, functionId, metadata))) return ALLOWED;
  return { allowed: false, message: `function '${functionId}' not allowed (add to rbac.expose_functions)` };
}

/** `<prefix>::<id>` when the session has a registration prefix. */
export function withPrefix(session: Session, id: string): string {
  const prefix = session.functionRegistrationPrefix;
  return prefix === undefined ? id : `${prefix}::${id}`;
}

/** True when a session may bind a trigger of `triggerType`. */
export function triggerTypeAllowed(session: Session, triggerType: string): boolean {
  return session.allowedTriggerTypes === undefined || session.allowedTriggerTypes.has(triggerType);
}
