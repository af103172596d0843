/**
 * The errors a bridged call can end with, each saying whether the remote side may have run it:
 * - `bridge_unavailable`: the remote engine is not connected; the call was not sent (definitive, safe to retry).
 * - `bridge_timeout`: sent, no answer within `timeout_ms`; the remote was told to cancel, outcome unknown.
 * - `bridge_connection_lost`: sent, then the connection dropped before the answer; outcome unknown.
 * - `bridge_hop_limit`: the call already crossed `MAX_BRIDGE_HOPS` bridges (a routing loop); not sent.
 * Any other error is the remote function's own, passed through unchanged.
 */
import { ClientErrorCode, InvocationError } from '@svc/sdk/core';
import { EngineErrorCode, ModuleErrorCode } from '../../error-codes.js';
import { MAX_BRIDGE_HOPS } from './hops.js';

/** The bridge's codes (from the engine's catalogue, engine/src/error-codes.ts). */
export const BridgeErrors = Object.freeze({
  unavailable: ModuleErrorCode.BridgeUnavailable,
  timeout: ModuleErrorCode.BridgeTimeout,
  connectionLost: ModuleErrorCode.BridgeConnectionLost,
  hopLimit: ModuleErrorCode.BridgeHopLimit,
} as const);

export function unavailableError(url: string, functionId: string): InvocationError {
  return new InvocationError({
    code: BridgeErrors.unavailable,
    message: `remote engine ${url} is not connected; '${functionId}' was not sent (retry once the bridge is back)`,
    function_id: functionId,
  });
}

export function hopLimitError(functionId: string): InvocationError {
  return new InvocationError({
    code: BridgeErrors.hopLimit,
    message: `'${functionId}' crossed ${MAX_BRIDGE_HOPS} bridges already; refusing it to stop a routing loop (check the expose/forward config of the bridged engines)`,
    function_id: functionId,
  });
}

/** Maps what the remote call failed with to the error the local caller sees. */
export function remoteCallError(err: unknown, url: string, functionId: string, timeoutMs: number): unknown {
  const code = err instanceof InvocationError ? err.code : undefined;
  if (code === ClientErrorCode.Timeout) {
    return new InvocationError({
      code: BridgeErrors.timeout,
      message: `remote engine ${url} did not answer '${functionId}' within ${timeoutMs} ms; it was asked to cancel, but the outcome is unknown`,
      function_id: functionId,
    });
  }
  if (code === EngineErrorCode.InvocationStopped || code === ClientErrorCode.ConnectionClosed) {
    return new InvocationError({
      code: BridgeErrors.connectionLost,
      message: `the connection to remote engine ${url} dropped while '${functionId}' was running there; the outcome is unknown`,
      function_id: functionId,
    });
  }
  return err;
}
