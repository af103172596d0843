/**
 * Validation of `state::*` inputs (untrusted: they come from any worker). Every problem is an `INVALID_ARGUMENTS`
 * error that names the field and says what is expected; nothing reaches the store before its input passed here.
 */
import { ErrorCode, InvocationError, MAX_VALUE_DEPTH, parseUpdateOp, type UpdateOp } from '@svc/sdk';
import type { JsonValue } from './adapters/types.js';

/** Deepest nesting a stored value may have (deeper JSON is refused rather than risking the stack). */
export { MAX_VALUE_DEPTH };
/** Longest scope or key, in bytes. */
export const MAX_NAME_BYTES = 1024;
/** Most ops in one `state::update`. */
export const MAX_OPS = 1000;

type Fields = Record<string, unknown>;

export function invalid(functionId: string, message: string): InvocationError {
  return new InvocationError({
    code: ErrorCode.InvalidArguments,
    message: `${functionId}: ${message}`,
    function_id: functionId,
  });
}

export function fieldsOf(functionId: string, payload: unknown): Fields {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw invalid(functionId, 'the input must be an object like {"scope": "...", "key": "..."}');
  }
  return payload as Fields;
}

export function nameField(functionId: string, fields: Fields, name: 'scope' | 'key'): string {
  const value = fields[name];
  if (value === undefined || value === null) throw invalid(functionId, `${name} is required (a non-empty string)`);
  if (typeof value !== 'string' || value === '') {
    throw invalid(functionId, `${name} must be a non-empty string, got ${describe(value)}`);
  }
  if (Buffer.byteLength(value) > MAX_NAME_BYTES) {
    throw invalid(functionId, `${name} is longer than ${MAX_NAME_BYTES} bytes; use a shorter ${name}`);
  }
  return value;
}

/** `value` (or its alias `data`): required, and plain JSON. */
export function valueField(functionId: string, fields: Fields): JsonValue {
  const value = fields.value !== undefined ? fields.value : fields.data;
  if (value === undefined) throw invalid(functionId, 'value is required (any JSON value; null is allowed)');
  return jsonValue(functionId, value, 'value');
}

/**
 * Checks that `value` is plain JSON: finite numbers, strings, booleans, null, arrays and plain objects. The path of
 * an offending part (`value.tags[2]`) is spelled out only when there is one: a walk that built it for every part
 * made a string per nested value of every write.
 */
export function jsonValue(functionId: string, value: unknown, path: string): JsonValue {
  const problem = firstProblem(value, 0);
  if (problem !== undefined) throw invalid(functionId, `${path}${problem.at.reverse().join('')} ${problem.why}`);
  return value as JsonValue;
}

/** What is wrong with the first part of `value` that is not plain JSON (its path from `value`, innermost first). */
function firstProblem(value: unknown, depth: number): { at: string[]; why: string } | undefined {
  if (depth > MAX_VALUE_DEPTH) return { at: [], why: `is nested deeper than ${MAX_VALUE_DEPTH} levels` };
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') {
    return Number.isFinite(value) ? undefined : { at: [], why: `is ${value}, which JSON cannot hold` };
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = firstProblem(value[i], depth + 1);
      if (problem !== undefined) return (problem.at.push(`[${i}]`), problem);
    }
    return undefined;
  }
  if (typeof value === 'object' && isPlainObject(value)) {
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const problem = firstProblem((value as Record<string, unknown>)[key], depth + 1);
      if (problem !== undefined) return (problem.at.push(`.${key}`), problem);
    }
    return undefined;
  }
  return { at: [], why: `is ${describe(value)}, not a JSON value` };
}

export function opsField(functionId: string, fields: Fields): UpdateOp[] {
  const ops = fields.ops;
  if (!Array.isArray(ops)) throw invalid(functionId, 'ops is required: an array of {type, path, ...} operations');
  if (ops.length > MAX_OPS) throw invalid(functionId, `ops has ${ops.length} entries; at most ${MAX_OPS} are allowed`);
  return ops.map((op, index) => parseOp(functionId, op, `ops[${index}]`));
}

/** The op's shape is checked by the SDK (one rule set with `stream::update`); its value must also be plain JSON. */
function parseOp(functionId: string, raw: unknown, where: string): UpdateOp {
  const parsed = parseUpdateOp(raw, where);
  if (!parsed.ok) throw invalid(functionId, parsed.problem);
  const op = parsed.op;
  if ('value' in op) jsonValue(functionId, op.value, `${where}.value`);
  return op;
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`;
  return `a ${typeof value}`;
}
