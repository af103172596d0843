/**
 * Checks the shape of one untrusted update op (as it came off the wire) and normalizes it: a `set` without a value
 * sets `null`; a `merge`/`append` path of `null` means the root. A malformed op is a caller's bug, so workers refuse
 * the whole call with the returned problem (unlike a data conflict, which only skips the op when it is applied).
 *
 * Values are not re-checked here: they are JSON because they were decoded from JSON. A worker that stores values
 * with further limits (depth, number ranges) checks them itself.
 */
import type { JsonValue, UpdateOp } from './types.js';

export type ParsedUpdateOp = { ok: true; op: UpdateOp } | { ok: false; problem: string };

const OP_TYPES = 'set, merge, increment, decrement, append, remove';

type Fields = Record<string, unknown>;

class Malformed extends Error {}

/** `where` names the op in the problem (`ops[3]`), so the caller can find it. */
export function parseUpdateOp(raw: unknown, where = 'op'): ParsedUpdateOp {
  try {
    return { ok: true, op: toOp(raw, where) };
  } catch (error) {
    if (error instanceof Malformed) return { ok: false, problem: error.message };
    throw error;
  }
}

function toOp(raw: unknown, where: string): UpdateOp {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new Malformed(`${where} must be an object with a type (${OP_TYPES})`);
  }
  const op = raw as Fields;
  switch (op.type) {
    case 'set':
      return { type: 'set', path: fieldPath(op, where), value: opValue(op, where, true) };
    case 'remove':
      return { type: 'remove', path: fieldPath(op, where) };
    case 'increment':
    case 'decrement':
      return { type: op.type, path: fieldPath(op, where), by: integerBy(op, where) };
    case 'merge':
    case 'append':
      return { type: op.type, path: segmentPath(op, where), value: opValue(op, where, false) };
    default:
      throw new Malformed(`${where}.type must be one of ${OP_TYPES}, got ${describe(op.type)}`);
  }
}

function fieldPath(op: Fields, where: string): string {
  if (typeof op.path !== 'string') {
    throw new Malformed(`${where}.path must be a string (a first-level field name, "" for the whole value)`);
  }
  return op.path;
}

function segmentPath(op: Fields, where: string): string | string[] | undefined {
  const path = op.path;
  if (path === undefined || path === null) return undefined;
  if (typeof path === 'string') return path;
  if (Array.isArray(path) && path.every((segment) => typeof segment === 'string')) return path;
  throw new Malformed(`${where}.path must be a string or an array of strings`);
}

function opValue(op: Fields, where: string, optional: boolean): JsonValue {
  if (op.value === undefined) {
    if (optional) return null;
    throw new Malformed(`${where}.value is required`);
  }
  return op.value as JsonValue;
}

function integerBy(op: Fields, where: string): number {
  if (typeof op.by !== 'number' || !Number.isSafeInteger(op.by)) {
    throw new Malformed(`${where}.by must be an integer, got ${describe(op.by)}`);
  }
  return op.by;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`;
  return `a ${typeof value}`;
}
