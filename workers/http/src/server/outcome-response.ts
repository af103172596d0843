/**
 * An invocation's outcome as the HTTP response: the function's result serialised (docs/protocol.md §5), or the
 * error envelope for a condition not met (422), a deadline passed (504) or a failure (500), the failures logged
 * with the route and the error id the client sees.
 */
import { ClientErrorCode } from '@svc/sdk';
import type { Logger } from '../logger.js';
import { HttpErrorCode } from '../error-codes.js';
import type { DispatchOutcome } from './dispatch.js';
import { errorResponse, type PlainResponse } from './errors.js';
import { serializeResult } from './response.js';
import { describeRoute, type RouteMatch } from './route-table.js';

/** What the response needs of the request handler's options. */
export interface ResponseContext {
  logger: Logger;
  defaultTimeoutMs: number;
}

export function toResponse(
  opts: ResponseContext,
  match: RouteMatch,
  method: string,
  outcome: DispatchOutcome,
): PlainResponse {
  switch (outcome.kind) {
    case 'result':
      try {
        return serializeResult(outcome.value);
      } catch (err) {
        const failure = errorResponse(500, HttpErrorCode.InvalidResponse, (err as Error).message);
        opts.logger.warn(
          { route: describeRoute(method, match.target.apiPath), error_id: failure.envelope.error.error_id },
          `invalid handler response: ${(err as Error).message}`,
        );
        return failure;
      }
    case 'skipped':
      return errorResponse(422, HttpErrorCode.ConditionNotMet, 'Request condition not met', {}, { skipped: true });
    case 'timeout': {
      if (outcome.during === 'middleware') {
        const msg = `middleware did not answer within ${opts.defaultTimeoutMs} ms`;
        return errorResponse(504, HttpErrorCode.MiddlewareTimeout, msg);
      }
      const msg = `function '${match.target.functionId}' did not answer within ${opts.defaultTimeoutMs} ms`;
      return errorResponse(504, HttpErrorCode.GatewayTimeout, msg);
    }
    case 'error': {
      // A request too large for the engine's messages (body_limit_bytes above its max_payload_bytes) is the client's.
      const status = outcome.code === ClientErrorCode.PayloadTooLarge ? 413 : 500;
      const failure = errorResponse(status, outcome.code, outcome.message);
      const fn = outcome.functionId;
      opts.logger.warn(
        {
          route: describeRoute(method, match.target.apiPath),
          function_id: fn,
          code: outcome.code,
          error_id: failure.envelope.error.error_id,
          stack: outcome.stack,
        },
        `${outcome.during} failed: ${outcome.message}`,
      );
      return failure;
    }
  }
}
