/**
 * What the HTTP-functions module is given for each `registerfunction` carrying an HTTP `invocation` config, and
 * the interceptor that refuses such registrations when the module is not loaded (installed by the engine after
 * every configured module, so it only sees what no module claimed).
 */
import type { HttpInvocationRef } from '@svc/sdk';
import type { RegistrationInterceptor } from '../module.js';
import { ModuleErrorCode } from '../../error-codes.js';

/** The refusal code of an HTTP-invoked function: the module is not loaded, or it refused the registration. */
export const HTTP_FUNCTIONS_UNAVAILABLE = ModuleErrorCode.HttpFunctionsUnavailable;

/** The worker's `registerfunction` frame, unchanged, plus who sent it. */
export interface HttpFunctionRegistration {
  functionId: string;
  invocation: HttpInvocationRef;
  description?: string;
  request_format?: unknown;
  response_format?: unknown;
  metadata?: unknown;
  /** The id of the worker that registered it (the function lives as long as that worker stays connected). */
  workerId: string;
}

/** Refuses what reaches it: an HTTP-invoked function nobody claimed. */
export const refuseUnclaimedHttpFunctions: RegistrationInterceptor = (r) => {
  if (r.kind !== 'function' || r.message.invocation == null) return undefined;
  return {
    refuse: {
      code: HTTP_FUNCTIONS_UNAVAILABLE,
      message:
        `Function ${r.message.id} has an HTTP invocation config, but the HTTP-functions module is not loaded; ` +
        'add modules::http_functions::HttpFunctionsModule to the engine config',
    },
  };
};
