/**
 * Input checks for the engine's functions: untrusted payloads, so every field is checked, and a bad one is
 * refused with `INVALID_ARGUMENTS` naming the field.
 */
import { ErrorCode, InvocationError } from '@svc/sdk/core';

export type Args = Record<string, unknown>;

export function asArgs(payload: unknown, functionId: string): Args {
  if (payload === undefined || payload === null) return {};
  if (typeof payload !== 'object' || Array.isArray(payload)) {
    throw invalid(functionId, 'input must be a JSON object');
  }
  return payload as Args;
}

export function optString(args: Args, key: string, functionId: string): string | undefined {
  const value = args[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid(functionId, `"${key}" must be a string`);
  return value;
}

export function optBool(args: Args, key: string, functionId: string): boolean {
  const value = args[key];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw invalid(functionId, `"${key}" must be a boolean`);
  return value;
}

export function optStrings(args: Args, key: string, functionId: string): string[] | undefined {
  const value = args[key];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw invalid(functionId, `"${key}" must be an array of strings`);
  }
  return value;
}

export function invalid(functionId: string, message: string): InvocationError {
  return new InvocationError({
    code: ErrorCode.InvalidArguments,
    message: `${functionId}: ${message}`,
    function_id: functionId,
  });
}

export function notFound(functionId: string, message: string): InvocationError {
  return new InvocationError({ code: ErrorCode.NotFound, message, function_id: functionId });
}

/** Case-insensitive substring match used by every `search` argument. */
export function matches(search: string | undefined, ...fields: (string | undefined)[]): boolean {
  if (search === undefined || search === '') return true;
  const needle = search.toLowerCase();
  return fields.some((f) => f !== undefined && f.toLowerCase().includes(needle));
}

/**
 * `engine::*` ids are internal, except the queue's admin functions (docs/compatibility.md, "Functions (`engine::*`)").
 */
export function isInternalId(id: string): boolean {
  return id.startsWith('engine::') && !id.startsWith('engine::queue::');
}
