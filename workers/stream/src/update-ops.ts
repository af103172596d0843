/**
 * `stream::update` operations (PROTOCOL.md §4.1 UpdateOp): set, merge, increment, decrement, append, remove.
 *
 * Ops are applied in order to a copy of the current value. An op that cannot be applied is skipped and reported as
 * `{op_index, code, message}`; the others still apply. A path is a dot-separated string or an array of segments;
 * an empty or absent path means the whole value.
 */

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

type Obj = Record<string, unknown>;

const MAX_PATH_SEGMENTS = 32;
const MAX_SEGMENT_BYTES = 256;
const MAX_VALUE_DEPTH = 16;
const MAX_MERGE_KEYS = 1024;
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);

class OpError extends Error {
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

function parsePath(kind: string, path: unknown): string[] {
  if (path === undefined || path === null || path === '') return [];
  const segments = typeof path === 'string' ? path.split('.') : path;
  if (!Array.isArray(segments) || !segments.every((s) => typeof s === 'string')) {
    throw new OpError(`${kind}.path.invalid`, 'path must be a dot-separated string or an array of strings');
  }
  if (segments.length > MAX_PATH_SEGMENTS) {
    throw new OpError(`${kind}.path.too_deep`, `path has ${segments.length} segments; at most ${MAX_PATH_SEGMENTS}`);
  }
  for (const segment of segments) {
    if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES) {
      throw new OpError(`${kind}.path.segment_too_long`, `a path segment is over ${MAX_SEGMENT_BYTES} bytes`);
    }
    if (FORBIDDEN_SEGMENTS.has(segment)) {
      throw new OpError(`${kind}.path.forbidden_segment`, `path segment '${segment}' is not allowed`);
    }
  }
  return segments;
}

function depthOf(value: unknown, limit: number, depth = 0): number {
  if (depth > limit) return depth;
  if (Array.isArray(value)) return Math.max(depth, ...value.map((v) => depthOf(v, limit, depth + 1)));
  if (isObj(value)) return Math.max(depth, ...Object.values(value).map((v) => depthOf(v, limit, depth + 1)));
  return depth;
}

function checkValue(kind: string, value: unknown): void {
  if (value === undefined) throw new OpError(`${kind}.value.missing`, 'value is required');
  if (depthOf(value, MAX_VALUE_DEPTH) > MAX_VALUE_DEPTH) {
    throw new OpError(`${kind}.value.too_deep`, `value nests deeper than ${MAX_VALUE_DEPTH} levels`);
  }
}

/** Walks to the parent of the last segment, creating objects on the way. */
function parentOf(kind: string, root: Obj, segments: string[]): Obj {
  let node = root;
  for (const segment of segments.slice(0, -1)) {
    const next = node[segment];
    if (next === undefined || next === null) node[segment] = {};
    else if (!isObj(next)) throw new OpError(`${kind}.target_not_object`, `'${segment}' is not an object`);
    node = node[segment] as Obj;
  }
  return node;
}

/** Applies `change` to the value at `segments` of `doc`, returning the new document. */
function modify(kind: string, doc: unknown, segments: string[], change: (current: unknown) => unknown): unknown {
  if (segments.length === 0) return change(doc);
  const root: Obj = doc === undefined || doc === null ? {} : isObj(doc) ? doc : notObject(kind);
  const parent = parentOf(kind, root, segments);
  const key = segments[segments.length - 1] as string;
  const next = change(parent[key]);
  if (next === undefined) delete parent[key];
  else parent[key] = next;
  return root;
}

function notObject(kind: string): never {
  throw new OpError(`${kind}.target_not_object`, 'the stored value is not an object');
}

function asNumber(kind: string, value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new OpError(`${kind}.type_mismatch`, `${what} must be a finite number`);
  }
  return value;
}

function applyOne(doc: unknown, op: Obj): unknown {
  const kind = typeof op.type === 'string' ? op.type : 'op';
  switch (op.type) {
    case 'set':
      checkValue(kind, op.value);
      return modify(kind, doc, parsePath(kind, op.path), () => structuredClone(op.value));
    case 'merge': {
      checkValue(kind, op.value);
      if (!isObj(op.value)) throw new OpError('merge.value_not_object', 'merge value must be an object');
      if (Object.keys(op.value).length > MAX_MERGE_KEYS) {
        throw new OpError('merge.value.too_many_keys', `merge value has more than ${MAX_MERGE_KEYS} keys`);
      }
      const patch = op.value;
      for (const key of Object.keys(patch)) {
        if (FORBIDDEN_SEGMENTS.has(key)) throw new OpError('merge.forbidden_key', `key '${key}' is not allowed`);
      }
      return modify(kind, doc, parsePath(kind, op.path), (current) => {
        if (current !== undefined && current !== null && !isObj(current)) {
          throw new OpError('merge.target_not_object', 'merge target is not an object');
        }
        return { ...(current ?? {}), ...structuredClone(patch) };
      });
    }
    case 'increment':
    case 'decrement': {
      const by = asNumber(kind, op.by ?? 1, 'by');
      const sign = op.type === 'increment' ? 1 : -1;
      return modify(kind, doc, parsePath(kind, op.path), (current) => {
        const base = current === undefined || current === null ? 0 : asNumber(kind, current, 'the target');
        return base + sign * by;
      });
    }
    case 'append':
      checkValue(kind, op.value);
      return modify(kind, doc, parsePath(kind, op.path), (current) => appendTo(current, op.value));
    case 'remove': {
      const segments = parsePath(kind, op.path);
      if (segments.length === 0) throw new OpError('remove.path.missing', 'remove needs a non-empty path');
      return modify(kind, doc, segments, () => undefined);
    }
    default:
      throw new OpError(
        'op.unknown_type',
        `unknown op type ${JSON.stringify(op.type)}; expected set, merge, increment, decrement, append or remove`,
      );
  }
}

function appendTo(current: unknown, value: unknown): unknown {
  if (current === undefined || current === null) return [structuredClone(value)];
  if (Array.isArray(current)) return [...current, structuredClone(value)];
  if (typeof current === 'string' && typeof value === 'string') return current + value;
  throw new OpError('append.type_mismatch', 'append target must be an array (or a string when appending a string)');
}

/** Applies `ops` to a deep copy of `current`. */
export function applyUpdateOps(current: unknown, ops: unknown[]): UpdateOutcome {
  let doc: unknown = current === undefined ? undefined : structuredClone(current);
  const errors: UpdateOpError[] = [];
  ops.forEach((op, index) => {
    if (!isObj(op)) {
      errors.push({ op_index: index, code: 'op.invalid', message: 'an op must be an object with a type' });
      return;
    }
    // Work on a copy so a failing op leaves no half-applied change behind.
    const snapshot = doc === undefined ? undefined : structuredClone(doc);
    try {
      doc = applyOne(snapshot, op);
    } catch (error) {
      if (!(error instanceof OpError)) throw error;
      errors.push({ op_index: index, code: error.code, message: error.message });
    }
  });
  return { value: doc === undefined ? null : doc, errors, changed: errors.length < ops.length };
}
