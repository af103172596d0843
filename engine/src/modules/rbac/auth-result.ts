/**
 * The auth function's answer (an AuthResult, docs/rbac.md "Sessions: the auth function") → a `Session`. Untrusted:
 * every field is checked, and a wrong one refuses the connection with a message that names it.
 */
import type { Session } from './policy.js';

export type AuthParse = { ok: true; session: Session } | { ok: false; message: string };

type Fields = Record<string, unknown>;

class AuthResultError extends Error {}

function strings(fields: Fields, key: string): string[] | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new AuthResultError(`"${key}" must be an array of strings`);
  }
  return value;
}

function bool(fields: Fields, key: string, fallback: boolean): boolean {
  const value = fields[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw new AuthResultError(`"${key}" must be a boolean`);
  return value;
}

function context(fields: Fields): Record<string, unknown> {
  const value = fields['context'];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new AuthResultError('"context" must be an object');
  return value as Record<string, unknown>;
}

function prefix(fields: Fields): string | undefined {
  const value = fields['function_registration_prefix'];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '') {
    throw new AuthResultError('"function_registration_prefix" must be a non-empty string');
  }
  return value;
}

export function parseAuthResult(value: unknown): AuthParse {
  if (value === undefined || value === null) return { ok: false, message: 'auth function returned no result' };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, message: 'auth function must return an object (an AuthResult)' };
  }
  const fields = value as Fields;
  try {
    const allowedTypes = strings(fields, 'allowed_trigger_types');
    return {
      ok: true,
      session: {
        allowedFunctions: new Set(strings(fields, 'allowed_functions') ?? []),
        forbiddenFunctions: new Set(strings(fields, 'forbidden_functions') ?? []),
        allowedTriggerTypes: allowedTypes === undefined ? undefined : new Set(allowedTypes),
        allowTriggerTypeRegistration: bool(fields, 'allow_trigger_type_registration', false),
        allowFunctionRegistration: bool(fields, 'allow_function_registration', true),
        context: context(fields),
        functionRegistrationPrefix: prefix(fields),
      },
    };
  } catch (err) {
    if (err instanceof AuthResultError) return { ok: false, message: `auth function result: ${err.message}` };
    throw err;
  }
}
