/** The errors the client itself produces for calls it can no longer complete. */
import { InvocationError } from '../errors.js';
import { ClientErrorCode, ErrorCode } from '../error-codes.js';

/**
 * A call sent on a connection that dropped: the engine has stopped it (docs/protocol.md, "3.6 Ends other than a
 * result").
 */
export function connectionLostError(functionId: string): InvocationError {
  return new InvocationError({
    code: ErrorCode.InvocationStopped,
    message: 'the connection to the engine was lost before the answer arrived',
    function_id: functionId,
  });
}

/** The transport will not connect again (retries exhausted, or the engine closed an in-process client). */
export function connectionClosedError(): InvocationError {
  return new InvocationError({
    code: ClientErrorCode.ConnectionClosed,
    message: 'the connection to the engine closed and will not be retried; create a new client',
  });
}

export function shutdownError(functionId: string | undefined): InvocationError {
  return new InvocationError({
    code: ClientErrorCode.ClientShutdown,
    message: 'the client is shutting down',
    ...(functionId !== undefined ? { function_id: functionId } : {}),
  });
}
