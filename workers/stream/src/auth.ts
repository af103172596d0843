import type { Logger } from 'pino';
import { ClientErrorCode, ErrorCode, type SvcClient } from '@svc/sdk';
import type { AuthDecision } from './server/client-server.js';
import type { StreamAuthInput } from './server/auth-input.js';
import { StreamErrorCode } from './error-codes.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads the auth function's answer. It lets the client in only with an object that does not say no
 * (`{unauthorized: true}` or `{allowed: false}`); its `context` (null if absent) reaches the join/leave handlers.
 * Anything else (nothing, null, false, a string) is a denial.
 */
export function decide(result: unknown): AuthDecision {
  if (!isRecord(result) || result.unauthorized === true || result.allowed === false) {
    return { allow: false, status: 401, reason: 'unauthorized' };
  }
  return { allow: true, context: result.context ?? null };
}

const TIMEOUT_CODES = new Set<string>([
  ClientErrorCode.Timeout,
  ErrorCode.InvocationTimeout,
  StreamErrorCode.AuthTimeout,
]);

/**
 * Calls `functionId` for each upgrade request, bounded by `timeoutMs`: a denial gives 401, a failure 500, no answer
 * in time 503. No error detail reaches the client (it is logged here instead).
 */
export function createAuthenticator(client: SvcClient, functionId: string, timeoutMs: number, logger: Logger) {
  return async (input: StreamAuthInput): Promise<AuthDecision> => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(Object.assign(new Error('auth function timed out'), { code: StreamErrorCode.AuthTimeout })),
        timeoutMs,
      );
    });
    try {
      const result = await Promise.race([
        client.trigger({ function_id: functionId, payload: input, timeoutMs }),
        deadline,
      ]);
      return decide(result);
    } catch (err) {
      const code = isRecord(err) && typeof err.code === 'string' ? err.code : 'unknown';
      logger.warn({ err, function_id: functionId, addr: input.addr }, 'auth function failed; connection refused');
      return TIMEOUT_CODES.has(code)
        ? { allow: false, status: 503, reason: 'authentication timed out' }
        : { allow: false, status: 500, reason: 'authentication failed' };
    } finally {
      clearTimeout(timer);
    }
  };
}
