/** Reads the input of `bridge.invoke` / `bridge.invoke_async`: `{function_id, data?, timeout_ms?}`. */
import { InvocationError } from '@svc/sdk/core';
import { ModuleErrorCode } from '../../error-codes.js';

export interface InvokeInput {
  function_id: string;
  data: unknown;
  timeout_ms?: number;
}

export function readInvokeInput(input: unknown, functionId: string): InvokeInput {
  const o =
    typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  const target = o.function_id;
  if (typeof target !== 'string' || target === '') {
    throw badInput(functionId, 'function_id must be a non-empty string: {function_id, data, timeout_ms?}');
  }
  const timeout = o.timeout_ms;
  if (timeout !== undefined && !(typeof timeout === 'number' && Number.isInteger(timeout) && timeout > 0)) {
    throw badInput(functionId, 'timeout_ms must be a positive integer (milliseconds)');
  }
  return { function_id: target, data: o.data ?? null, ...(timeout !== undefined ? { timeout_ms: timeout } : {}) };
}

function badInput(functionId: string, message: string): InvocationError {
  return new InvocationError({
    code: ModuleErrorCode.InvalidInput,
    message: `${functionId}: ${message}`,
    function_id: functionId,
  });
}
