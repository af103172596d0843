/**
 * The limits of update ops (docs/protocol.md) and the checks of paths and merge values against them, plus the small
 * JSON helpers the ops share.
 */
import type { JsonObject, JsonValue } from './types.js';
import { UpdateOpErrorCode as C } from '../error-codes.js';
import { nestedDeeperThan } from '../json-depth.js';

export interface Problem {
  code: string;
  message: string;
}

export const MAX_PATH_DEPTH = 32;
export const MAX_SEGMENT_BYTES = 256;
export const MAX_MERGE_VALUE_DEPTH = 16;
export const MAX_MERGE_VALUE_KEYS = 1024;
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export function pathProblem(segments: readonly string[]): Problem | undefined {
  if (segments.length > MAX_PATH_DEPTH) {
    return {
      code: C.PathTooDeep,
      message: `path has ${segments.length} segments; at most ${MAX_PATH_DEPTH} are allowed`,
    };
  }
  for (const segment of segments) {
    if (segment === '') return { code: C.PathEmptySegment, message: 'path contains an empty segment' };
    const bytes = Buffer.byteLength(segment);
    if (bytes > MAX_SEGMENT_BYTES) {
      return {
        code: C.PathSegmentTooLong,
        message: `path segment of ${bytes} bytes exceeds ${MAX_SEGMENT_BYTES}; use a shorter field name`,
      };
    }
    if (PROTOTYPE_KEYS.has(segment)) {
      return {
        code: C.PathProtoPolluted,
        message: `path segment '${segment}' is not allowed (prototype pollution); rename the field`,
      };
    }
  }
  return undefined;
}

export function mergeValueProblem(value: JsonValue): Problem | undefined {
  if (!isObject(value)) return { code: C.MergeValueNotAnObject, message: 'a merge value must be a JSON object' };
  const keys = Object.keys(value);
  if (keys.length > MAX_MERGE_VALUE_KEYS) {
    return {
      code: C.MergeValueTooManyKeys,
      message: `merge value has ${keys.length} top-level keys; at most ${MAX_MERGE_VALUE_KEYS} are allowed`,
    };
  }
  const polluted = keys.find((key) => PROTOTYPE_KEYS.has(key));
  if (polluted !== undefined) {
    return {
      code: C.MergeValueProtoPolluted,
      message: `merge value key '${polluted}' is not allowed (prototype pollution)`,
    };
  }
  if (nestedDeeperThan(value, MAX_MERGE_VALUE_DEPTH)) {
    return {
      code: C.MergeValueTooDeep,
      message: `merge value is nested more than ${MAX_MERGE_VALUE_DEPTH} levels deep; at most ${MAX_MERGE_VALUE_DEPTH} are allowed`,
    };
  }
  return undefined;
}

export function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A deep copy that keeps a `__proto__` key as plain data (JSON.parse defines own properties). */
export function cloneJson<T extends JsonValue>(value: T): T {
  return typeof value === 'object' && value !== null ? (JSON.parse(JSON.stringify(value)) as T) : value;
}

export function typeName(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
