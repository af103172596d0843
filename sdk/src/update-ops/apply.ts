/**
 * Applies update ops (docs/protocol.md `UpdateOp`) in order to a copy of the current value; the one implementation
 * behind `state::update` and `stream::update`.
 *
 * Path rules, kept wire-compatible: `set`, `increment`, `decrement` and `remove` take one first-level field name
 * (`""` = the whole value; a dot is part of the name, never a separator). `merge` and `append` take a field name or
 * an array of segments walked from the root (missing or non-object intermediates become objects). Every segment is
 * non-empty, at most 256 bytes, never `__proto__`, `constructor` or `prototype`; at most 32 segments. A merge value
 * is an object with at most 1024 top-level keys, none of them a prototype key, nested at most 16 deep.
 *
 * A failing op is skipped and reported as `{op_index, code, message}`; the other ops still apply. Every check runs
 * before an op writes anything, so a failed op leaves no partial change behind.
 */
import { cloneJson, isObject, mergeValueProblem, pathProblem, typeName } from './checks.js';
import type { JsonObject, JsonValue, UpdateOp, UpdateOpError, UpdateOutcome } from './types.js';
import { UpdateOpErrorCode as C, updateOpPathCode } from '../error-codes.js';

/** Applies `ops` to `current` (`undefined` = missing key); never mutates `current`. */
export function applyUpdateOps(current: JsonValue | undefined, ops: readonly UpdateOp[]): UpdateOutcome {
  const state = new OpState(current);
  ops.forEach((op, index) => applyOne(state, op, index));
  return { value: state.value, errors: state.errors, changed: state.errors.length < ops.length };
}

class OpState {
  value: JsonValue;
  /** True while the key is missing and no op has written yet: numeric and append ops then start from scratch. */
  missing: boolean;
  readonly errors: UpdateOpError[] = [];

  constructor(current: JsonValue | undefined) {
    this.missing = current === undefined;
    this.value = current === undefined ? {} : cloneJson(current);
  }

  fail(op_index: number, code: string, message: string): void {
    this.errors.push({ op_index, code, message });
  }
}

function applyOne(state: OpState, op: UpdateOp, index: number): void {
  switch (op.type) {
    case 'set':
      return applySet(state, op.path, op.value, index);
    case 'merge':
      return applyMerge(state, segmentsOf(op.path), op.value, index);
    case 'increment':
      return applyNumeric(state, 'increment', op.path, op.by, index);
    case 'decrement':
      return applyNumeric(state, 'decrement', op.path, 0 - op.by, index);
    case 'append':
      return applyAppend(state, segmentsOf(op.path), op.value, index);
    case 'remove':
      return applyRemove(state, op.path, index);
  }
}

function segmentsOf(path: string | string[] | undefined): string[] {
  if (path === undefined || path === '') return [];
  return typeof path === 'string' ? [path] : path;
}

function fieldSegments(path: string): string[] {
  return path === '' ? [] : [path];
}

/** The path code of an op: `<op>.path.<reason>` (the merge codes read `merge.path.<reason>` too). */
function validatePath(state: OpState, opName: string, segments: readonly string[], index: number): boolean {
  const reason = pathProblem(segments);
  if (reason === undefined) return true;
  state.fail(index, updateOpPathCode(opName, reason.code), reason.message);
  return false;
}

function applySet(state: OpState, path: string, value: JsonValue, index: number): void {
  if (!validatePath(state, 'set', fieldSegments(path), index)) return;
  if (path === '') {
    state.value = cloneJson(value);
  } else if (isObject(state.value)) {
    state.value[path] = cloneJson(value);
  } else {
    return state.fail(index, C.SetTargetNotObject, notObjectMessage('set', path, state.value));
  }
  state.missing = false;
}

function applyRemove(state: OpState, path: string, index: number): void {
  if (!validatePath(state, 'remove', fieldSegments(path), index)) return;
  if (path === '') {
    state.value = null;
  } else if (isObject(state.value)) {
    delete state.value[path];
  } else {
    return state.fail(index, C.RemoveTargetNotObject, notObjectMessage('remove', path, state.value));
  }
  state.missing = false;
}

type NumericOp = 'increment' | 'decrement';
const NOT_NUMBER = { increment: C.IncrementNotNumber, decrement: C.DecrementNotNumber } as const;
const NUMERIC_NOT_OBJECT = { increment: C.IncrementTargetNotObject, decrement: C.DecrementTargetNotObject } as const;

function applyNumeric(state: OpState, opName: NumericOp, path: string, delta: number, index: number): void {
  if (!validatePath(state, opName, fieldSegments(path), index)) return;
  if (path === '') {
    if (state.missing) state.value = delta;
    else if (typeof state.value === 'number') state.value = state.value + delta;
    else return state.fail(index, NOT_NUMBER[opName], notNumberMessage(path, state.value));
  } else if (isObject(state.value)) {
    const existing = Object.hasOwn(state.value, path) ? state.value[path] : undefined;
    if (existing === undefined) state.value[path] = delta;
    else if (typeof existing === 'number') state.value[path] = existing + delta;
    else return state.fail(index, NOT_NUMBER[opName], notNumberMessage(path, existing));
  } else {
    return state.fail(index, NUMERIC_NOT_OBJECT[opName], notObjectMessage(opName, path, state.value));
  }
  state.missing = false;
}

function applyMerge(state: OpState, segments: string[], value: JsonValue, index: number): void {
  if (!validatePath(state, 'merge', segments, index)) return;
  const problem = mergeValueProblem(value);
  if (problem !== undefined) return state.fail(index, problem.code, problem.message);
  const source = value as JsonObject;
  if (segments.length === 0) {
    // A root merge into a non-object leaves it as is (wire-compatible: no error either).
    if (!isObject(state.value)) return;
    assignAll(state.value, source);
  } else {
    assignAll(walkOrCreate(state, segments), source);
  }
  state.missing = false;
}

function applyAppend(state: OpState, segments: string[], value: JsonValue, index: number): void {
  if (!validatePath(state, 'append', segments, index)) return;
  if (segments.length === 0) {
    const start = state.missing ? null : state.value;
    const next = appended(start, value);
    if (next === undefined) return state.fail(index, C.AppendTypeMismatch, appendMismatch('root', start, value));
    state.value = next;
    state.missing = false;
    return;
  }
  if (!isObject(state.value)) {
    const label = `[${segments.join(', ')}]`;
    return state.fail(index, C.AppendTargetNotObject, notObjectMessage('append', label, state.value));
  }
  const leaf = segments[segments.length - 1] as string;
  const parent = segments.length === 1 ? state.value : walkOrCreate(state, segments.slice(0, -1));
  const existing = Object.hasOwn(parent, leaf) ? parent[leaf] : undefined;
  if (existing === undefined) {
    // A missing leaf: one level deep keeps the string tier (a string starts a string); deeper is always an array.
    parent[leaf] = segments.length === 1 ? initialAppend(value) : [cloneJson(value)];
  } else {
    const next = appended(existing, value);
    if (next === undefined) return state.fail(index, C.AppendTypeMismatch, appendMismatch(leaf, existing, value));
    parent[leaf] = next;
  }
  state.missing = false;
}

/** The target after appending `value`, or `undefined` when the types do not fit. */
function appended(target: JsonValue, value: JsonValue): JsonValue | undefined {
  if (Array.isArray(target)) return [...target, cloneJson(value)];
  if (typeof target === 'string') return typeof value === 'string' ? target + value : undefined;
  if (target === null) return initialAppend(value);
  return undefined;
}

function initialAppend(value: JsonValue): JsonValue {
  return typeof value === 'string' ? value : [cloneJson(value)];
}

function walkOrCreate(state: OpState, segments: readonly string[]): JsonObject {
  if (!isObject(state.value)) state.value = {};
  let node: JsonObject = state.value;
  for (const segment of segments) {
    const child = Object.hasOwn(node, segment) ? node[segment] : undefined;
    if (isObject(child)) {
      node = child;
    } else {
      const created: JsonObject = {};
      node[segment] = created;
      node = created;
    }
  }
  return node;
}

function assignAll(target: JsonObject, source: JsonObject): void {
  for (const [key, entry] of Object.entries(source)) target[key] = cloneJson(entry);
}

function notObjectMessage(opName: string, path: string, target: JsonValue): string {
  return `cannot ${opName} at path '${path || 'root'}': the value there is ${typeName(target)}, expected an object`;
}

function notNumberMessage(path: string, found: JsonValue): string {
  return `expected a number at path '${path || 'root'}', found ${typeName(found)}`;
}

function appendMismatch(path: string, target: JsonValue, value: JsonValue): string {
  return `cannot append ${typeName(value)} at path '${path}': the target is ${typeName(target)}; expected an array, a string (with a string value), null or a missing field`;
}
