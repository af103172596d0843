/**
 * Authentication headers of an outbound HTTP function call. Secrets are named env vars on the engine host (README.md
 * here, "The request"): the registration carries only the variable's name, never the secret.
 *
 * hmac: `x-svc-signature: sha256=hex(HMAC_SHA256(secret, "<ts>:<base64(body)>"))`, with `<ts>` the value of the
 * `x-svc-timestamp` header (unix seconds), so the receiver can reject replays outside its tolerance.
 */
import { createHmac } from 'node:crypto';
import type { HttpAuthRef } from '@svc/sdk';
import { ModuleErrorCode } from '../../error-codes.js';

export const SIGNATURE_HEADER = 'x-svc-signature';
export const TIMESTAMP_HEADER = 'x-svc-timestamp';

export type Env = Record<string, string | undefined>;

export class MissingSecretError extends Error {
  readonly code = ModuleErrorCode.SecretNotSet;
}

function secret(env: Env, name: string, what: string): string {
  const value = env[name];
  if (value === undefined || value === '') {
    throw new MissingSecretError(`${what} env var '${name}' is not set on the engine host`);
  }
  return value;
}

/** Throws MissingSecretError when a named secret is absent (checked at registration and at every call). */
export function checkSecrets(auth: HttpAuthRef | undefined, env: Env): void {
  if (auth) authHeaders(auth, env, '0', Buffer.alloc(0));
}

export function sign(secretValue: string, timestamp: string, body: Buffer): string {
  const mac = createHmac('sha256', secretValue)
    .update(`${timestamp}:${body.toString('base64')}`)
    .digest('hex');
  return `sha256=${mac}`;
}

export function authHeaders(auth: HttpAuthRef, env: Env, timestamp: string, body: Buffer): Record<string, string> {
  switch (auth.type) {
    case 'hmac':
      return { [SIGNATURE_HEADER]: sign(secret(env, auth.secret_key, 'hmac secret_key'), timestamp, body) };
    case 'bearer':
      return { authorization: `Bearer ${secret(env, auth.token_key, 'bearer token_key')}` };
    case 'api_key':
      return { [auth.header.toLowerCase()]: secret(env, auth.value_key, 'api_key value_key') };
  }
}

/** Header names that carry credentials; they are never sent to another origin after a redirect. */
export function credentialHeaders(auth: HttpAuthRef | undefined): Set<string> {
  const names = new Set(['authorization', 'cookie', 'proxy-authorization', SIGNATURE_HEADER]);
  if (auth?.type === 'api_key') names.add(auth.header.toLowerCase());
  return names;
}
