/**
 * `stream::update` operations (PROTOCOL.md §4.1 UpdateOp), with the same rules and error codes as `state::update`:
 *
 * - `set`, `remove`, `increment`, `decrement` take one first-level field name (`""` = the whole value; a dot is part
 *   of the name, never a separator);
 * - `merge` and `append` take a field name or an array of segments walked from the root (missing or non-object
 *   intermediates become objects);
 * - every segment is non-empty, at most 256 bytes and never `__proto__` / `constructor` / `prototype`; at most 32;
 * - a merge value is an object of at most 1024 top-level keys, no prototype key, nested at most 16 deep.
 *
 * Ops apply in order to a copy of the current value (a missing item starts as `{}`). An op that cannot apply is
 * skipped and reported as `{op_index, code, message}`; the others still apply. When none applies, nothing is written.
 */
import { z } from 'zod';

export interface UpdateOpError {
  op_index: number;
  code: string;
  message: string;
}

export interface UpdateOutcome {
  value: unknown;
  errors: UpdateOpError[];
  /** False when no op applied: the item is then neither written nor announced. */
  changed: boolean;
}

const segments = z.union([z.string(), z.array(z.string())]).nullish();

/** The op shapes; a malformed op fails the whole call (it is a caller's bug, not a data conflict). */
export const updateOpSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('set'), path: z.string(), value: z.unknown() }),
  z.object({ type: z.literal('remove'), path: z.string() }),
  z.object({ type: z.literal('increment'), path: z.string(), by: z.number().int() }),
  z.object({ type: z.literal('decrement'), path: z.string(), by: z.number().int() }),
  z.object({ type: z.literal('merge'), path: segments, value: z.unknown().refine((v) => v !== undefined) }),
  z.object({ type: z.literal('append'), path: segments, value: z.unknown().refine((v) => v !== undefined) }),
]);
export type UpdateOp = z.infer<typeof updateOpSchema>;

type Obj = Record<string, unknown>;

const MAX_SEGMENTS = 32;
const MAX_SEGMENT_BYTES = 256;
const MAX_MERGE_DEPTH = 16;
const MAX_MERGE_KEYS = 1024;
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

class OpFailed extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A deep copy that keeps a `__proto__` key as plain data. */
function clone<T>(value: T): T {
  return typeof value === 'object' && value !== null ? (JSON.parse(JSON.stringify(value)) as T) : value;
}

function kind(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

function depth(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depth));
  if (isObj(value)) return 1 + Math.max(0, ...Object.values(value).map(depth));
  return 0;
}

function checkPath(op: string, path: readonly string[]): void {
  const fail = (reason: string, message: string) => new OpFailed(`${op}.path.${reason}`, message);
  if (path.length > MAX_SEGMENTS) throw fail('too_deep', `path has ${path.length} segments; at most ${MAX_SEGMENTS}`);
  for (const segment of path) {
    if (segment === '') throw fail('empty_segment', 'path contains an empty segment');
    if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES) {
      throw fail('segment_too_long', `a path segment is over ${MAX_SEGMENT_BYTES} bytes; use a shorter field name`);
    }
    if (PROTOTYPE_KEYS.has(segment)) throw fail('proto_polluted', `path segment '${segment}' is not allowed`);
  }
}

function checkMergeValue(value: unknown): asserts value is Obj {
  if (!isObj(value)) throw new OpFailed('merge.value.not_an_object', 'a merge value must be a JSON object');
  const keys = Object.keys(value);
  if (keys.length > MAX_MERGE_KEYS) {
    throw new OpFailed('merge.value.too_many_keys', `merge value has ${keys.length} keys; at most ${MAX_MERGE_KEYS}`);
  }
  const polluted = keys.find((key) => PROTOTYPE_KEYS.has(key));
  if (polluted) throw new OpFailed('merge.value.proto_polluted', `merge value key '${polluted}' is not allowed`);
  if (depth(value) > MAX_MERGE_DEPTH) {
    throw new OpFailed('merge.value.too_deep', `merge value nests deeper than ${MAX_MERGE_DEPTH} levels`);
  }
}

/** The document being updated; `missing` until the first op writes to a missing item. */
class Doc {
  value: unknown;
  missing: boolean;

  constructor(current: unknown) {
    this.missing = current === undefined;
    this.value = current === undefined ? {} : clone(current);
  }

  /** The object at `path` from the root, creating objects on the way (a non-object root becomes `{}`). */
  walk(path: readonly string[]): Obj {
    if (!isObj(this.value)) this.value = {};
    let node = this.value as Obj;
    for (const segment of path) {
      const child = Object.hasOwn(node, segment) ? node[segment] : undefined;
      node = isObj(child) ? child : (node[segment] = {});
    }
    return node;
  }

  /** The first-level object for a field op, or a `<op>.target_not_object` failure. */
  fields(op: string, field: string): Obj {
    if (isObj(this.value)) return this.value;
    throw new OpFailed(
      `${op}.target_not_object`,
      `cannot ${op} '${field}': the value is ${kind(this.value)}, not an object`,
    );
  }
}

function added(op: string, field: string, current: unknown, delta: number): number {
  if (current === undefined) return delta;
  if (typeof current === 'number') return current + delta;
  throw new OpFailed(`${op}.not_number`, `expected a number at '${field || 'root'}', found ${kind(current)}`);
}

/** `target` with `value` appended, or undefined when the types do not fit. */
function appended(target: unknown, value: unknown): unknown {
  if (Array.isArray(target)) return [...target, clone(value)];
  if (typeof target === 'string') return typeof value === 'string' ? target + value : undefined;
  if (target === null) return typeof value === 'string' ? value : [clone(value)];
  return undefined;
}

function mismatch(where: string, target: unknown, value: unknown): OpFailed {
  return new OpFailed(
    'append.type_mismatch',
    `cannot append ${kind(value)} at '${where}': the target is ${kind(target)}; expected an array, a string (with a string value) or null`,
  );
}

function toSegments(path: string | string[] | null | undefined): string[] {
  if (path === undefined || path === null || path === '') return [];
  return typeof path === 'string' ? [path] : path;
}

function applySet(doc: Doc, field: string, value: unknown): void {
  checkPath('set', field === '' ? [] : [field]);
  if (field === '') doc.value = clone(value ?? null);
  else doc.fields('set', field)[field] = clone(value ?? null);
}

function applyRemove(doc: Doc, field: string): void {
  checkPath('remove', field === '' ? [] : [field]);
  if (field === '') doc.value = null;
  else delete doc.fields('remove', field)[field];
}

function applyNumber(doc: Doc, op: 'increment' | 'decrement', field: string, by: number): void {
  checkPath(op, field === '' ? [] : [field]);
  const delta = op === 'increment' ? by : -by;
  if (field === '') {
    doc.value = added(op, field, doc.missing ? undefined : doc.value, delta);
    return;
  }
  const target = doc.fields(op, field);
  target[field] = added(op, field, Object.hasOwn(target, field) ? target[field] : undefined, delta);
}

function applyMerge(doc: Doc, path: string[], value: unknown): void {
  checkPath('merge', path);
  checkMergeValue(value);
  // A root merge into a non-object leaves it as it is (no error either, as on the wire).
  if (path.length === 0 && !isObj(doc.value)) return;
  Object.assign(doc.walk(path), clone(value));
}

function applyAppend(doc: Doc, path: string[], value: unknown): void {
  checkPath('append', path);
  if (path.length === 0) {
    const start = doc.missing ? null : doc.value;
    const next = appended(start, value);
    if (next === undefined) throw mismatch('root', start, value);
    doc.value = next;
    return;
  }
  if (!isObj(doc.value)) {
    throw new OpFailed(
      'append.target_not_object',
      `cannot append at [${path.join(', ')}]: the value is ${kind(doc.value)}`,
    );
  }
  const leaf = path[path.length - 1] as string;
  const parent = doc.walk(path.slice(0, -1));
  const existing = Object.hasOwn(parent, leaf) ? parent[leaf] : undefined;
  if (existing === undefined) {
    // One level deep, a string starts a string; deeper, a missing leaf always starts an array.
    parent[leaf] = path.length === 1 && typeof value === 'string' ? value : [clone(value)];
    return;
  }
  const next = appended(existing, value);
  if (next === undefined) throw mismatch(leaf, existing, value);
  parent[leaf] = next;
}

function applyOne(doc: Doc, op: UpdateOp): void {
  switch (op.type) {
    case 'set':
      return applySet(doc, op.path, op.value);
    case 'remove':
      return applyRemove(doc, op.path);
    case 'increment':
    case 'decrement':
      return applyNumber(doc, op.type, op.path, op.by);
    case 'merge':
      return applyMerge(doc, toSegments(op.path), op.value);
    case 'append':
      return applyAppend(doc, toSegments(op.path), op.value);
  }
}

/** Applies `ops` to a copy of `current` (undefined = the item is missing). */
export function applyUpdateOps(current: unknown, ops: readonly UpdateOp[]): UpdateOutcome {
  const doc = new Doc(current);
  const errors: UpdateOpError[] = [];
  ops.forEach((op, op_index) => {
    const before = { value: clone(doc.value), missing: doc.missing };
    try {
      applyOne(doc, op);
      doc.missing = false;
    } catch (error) {
      if (!(error instanceof OpFailed)) throw error;
      // A failed op leaves no half-applied change behind.
      doc.value = before.value;
      doc.missing = before.missing;
      errors.push({ op_index, code: error.code, message: error.message });
    }
  });
  return { value: doc.value, errors, changed: errors.length < ops.length };
}
