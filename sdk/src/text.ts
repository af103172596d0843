/**
 * A value read off the wire (a payload field, a trigger config entry, a span attribute) as text: strings as they are,
 * errors and other primitives through `String`, and objects and arrays as JSON rather than `[object Object]`.
 */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (
    value === null ||
    value === undefined ||
    typeof value === 'number' ||
    typeof value === 'boolean' ||
    typeof value === 'bigint' ||
    typeof value === 'symbol' ||
    value instanceof Error
  ) {
    return String(value);
  }
  try {
    return JSON.stringify(value) ?? Object.prototype.toString.call(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** A byte count for a message: `17.0 MiB`. */
export function mebibytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
