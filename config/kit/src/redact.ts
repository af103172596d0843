/**
 * Secrets never reach a log line or an error message: a URL's password and any value under a key that names a
 * secret (password, token, api key, secret) are replaced before a value is echoed back to the user.
 */
export const REDACTED = '<redacted>';

const SECRET_KEY = /(pass(word)?|secret|token|api_?key|credential|private_?key)$/i;
/** `scheme://user:password@host` → the password part. */
const URL_CREDENTIALS = /([a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:)([^/\s@]+)@/gi;

export function isSecretKey(key: string | number | undefined): boolean {
  return typeof key === 'string' && SECRET_KEY.test(key);
}

/** Redacts passwords embedded in URLs anywhere in the text. */
export function redactText(text: string): string {
  return text.replace(URL_CREDENTIALS, `$1${REDACTED}@`);
}

/** Redacts a value about to be shown; `key` is the name it was found under. Objects are redacted deeply. */
export function redactValue(value: unknown, key?: string | number): unknown {
  if (isSecretKey(key) && value !== undefined && value !== null) return REDACTED;
  if (typeof value === 'string') return redactText(value);
  if (Array.isArray(value)) return value.map((item) => redactValue(item));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactValue(v, k);
    return out;
  }
  return value;
}
