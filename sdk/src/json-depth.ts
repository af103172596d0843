/**
 * How deep a JSON value nests, checked without recursing past the limit: values come from any client, and
 * `JSON.parse` reads nesting thousands of levels deep that `JSON.stringify` (and any unbounded walk) then overflows
 * the stack on.
 */

/**
 * The deepest a value kept or sent by a capability worker may nest (svc-state's values, svc-stream's data, a job's
 * data in svc-queue): deep enough for any real document, far from where writing it as JSON overflows the stack.
 */
export const MAX_VALUE_DEPTH = 128;

/**
 * True when `value` nests arrays and objects more than `limit` levels deep (a scalar is 0 levels, `[]` and `{}`
 * one, `[[1]]` two). The walk never goes below `limit`.
 */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (limit < 1) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (nestedDeeperThan(item, limit - 1)) return true;
    return false;
  }
  for (const key in value) {
    if (Object.hasOwn(value, key) && nestedDeeperThan((value as Record<string, unknown>)[key], limit - 1)) return true;
  }
  return false;
}
