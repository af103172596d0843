/** Validation of the queue functions' inputs (untrusted: they come from any worker). */
import { InvocationError, MAX_VALUE_DEPTH, nestedDeeperThan } from '@svc/sdk';
import { QueueErrorCode } from './error-codes.js';

export type Obj = Record<string, unknown>;

export function badInput(message: string, code: string = QueueErrorCode.InvalidArguments): InvocationError {
  return new InvocationError({ code, message });
}

const QUEUE_CODES = new Set<string>(Object.values(QueueErrorCode));

/**
 * An error as svc-queue's callers get it: one a backend threw with a code of `QueueErrorCode` (`queue_store_failed`,
 * `queue_closed`, ...) becomes an `InvocationError` with that code (anything else thrown reaches the caller as
 * `invocation_failed`); every other error is returned as it is.
 */
export function withQueueCode(err: unknown): unknown {
  if (err instanceof InvocationError || !(err instanceof Error)) return err;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && QUEUE_CODES.has(code) ? new InvocationError({ code, message: err.message }) : err;
}

export function asObject(input: unknown, fn: string): Obj {
  if (input && typeof input === 'object' && !Array.isArray(input)) return input as Obj;
  throw badInput(`${fn} expects an object`);
}

export function str(o: Obj, key: string, fn: string): string {
  const v = o[key];
  if (typeof v === 'string' && v.length > 0) return v;
  throw badInput(`${fn}: '${key}' must be a non-empty string`);
}

export function optStr(o: Obj, key: string, fn: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  throw badInput(`${fn}: '${key}' must be a string`);
}

/** The queue named by `queue` or its alias `topic`. */
export function queueName(o: Obj, fn: string, code: string = QueueErrorCode.InvalidArguments): string {
  const v = o.queue ?? o.topic;
  if (typeof v === 'string' && v.length > 0) return v;
  throw badInput(`${fn}: 'queue' (or 'topic') must be a non-empty string`, code);
}

export function int(o: Obj, key: string, dflt: number, min: number, max: number, fn: string): number {
  const v = o[key];
  if (v === undefined || v === null) return dflt;
  if (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max) return v;
  throw badInput(`${fn}: '${key}' must be an integer from ${min} to ${max}`);
}

/** A job's `data` (null when absent), refused when nested deeper than MAX_VALUE_DEPTH (stored and sent as JSON). */
export function jobData(o: Obj, fn: string): unknown {
  const data = o.data ?? null;
  if (nestedDeeperThan(data, MAX_VALUE_DEPTH))
    throw badInput(`${fn}: 'data' is nested deeper than ${MAX_VALUE_DEPTH} levels`);
  return data;
}
