/** Reading the input of a query function: every bad field is an `INVALID_ARGUMENTS` error naming the field. */
import { ErrorCode, InvocationError } from '@svc/sdk';

export type Input = Record<string, unknown>;

export function invalid(fn: string, message: string): InvocationError {
  return new InvocationError({ code: ErrorCode.InvalidArguments, message: `${fn}: ${message}`, function_id: fn });
}

export function inputOf(fn: string, v: unknown): Input {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw invalid(fn, 'the input must be an object');
  return v as Input;
}

export function str(fn: string, input: Input, key: string): string | undefined {
  const v = input[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalid(fn, `${key} must be a string`);
  return v;
}

export function num(fn: string, input: Input, key: string): number | undefined {
  const v = input[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid(fn, `${key} must be a number`);
  return v;
}

export function page(fn: string, input: Input, defaultLimit = 100): { offset: number; limit: number } {
  const offset = num(fn, input, 'offset') ?? 0;
  const limit = num(fn, input, 'limit') ?? defaultLimit;
  if (offset < 0 || limit < 0) throw invalid(fn, 'offset and limit must not be negative');
  return { offset: Math.floor(offset), limit: Math.min(Math.floor(limit), 10_000) };
}

/** A flat `{key: value}` object of attribute filters (values compared as strings). */
export function attrFilter(fn: string, input: Input, key = 'attributes'): [string, string][] {
  const v = input[key];
  if (v === undefined || v === null) return [];
  if (typeof v !== 'object' || Array.isArray(v)) throw invalid(fn, `${key} must be an object of key: value`);
  return Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, String(x)]);
}
