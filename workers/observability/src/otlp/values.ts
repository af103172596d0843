/**
 * OTLP/JSON building blocks (the shapes `@opentelemetry/otlp-transformer`'s JSON serializers write): any-values,
 * key-value attribute lists, nanosecond timestamps (decimal strings or numbers) and hex ids. Every reader
 * validates as it goes and throws `OtlpShapeError` naming the path of the first bad field.
 */
export class OtlpShapeError extends Error {
  constructor(path: string, expected: string) {
    super(`${path}: expected ${expected}`);
    this.name = 'OtlpShapeError';
  }
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Obj = Record<string, unknown>;

export function obj(v: unknown, path: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new OtlpShapeError(path, 'an object');
  return v as Obj;
}

/** A list field; absent means empty. */
export function list(v: unknown, path: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new OtlpShapeError(path, 'an array');
  return v;
}

export function optString(v: unknown, path: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new OtlpShapeError(path, 'a string');
  return v;
}

/** An OTLP `AnyValue` as plain JSON. */
export function anyValue(v: unknown, path: string): Json {
  if (v === undefined || v === null) return null;
  const o = obj(v, path);
  if ('stringValue' in o) return String(o.stringValue);
  if ('boolValue' in o) return Boolean(o.boolValue);
  if ('intValue' in o) return Number(o.intValue);
  if ('doubleValue' in o) return Number(o.doubleValue);
  if ('bytesValue' in o) return String(o.bytesValue);
  if ('arrayValue' in o) {
    return list(obj(o.arrayValue, `${path}.arrayValue`).values, `${path}.arrayValue.values`).map((x, i) =>
      anyValue(x, `${path}.arrayValue.values[${i}]`),
    );
  }
  if ('kvlistValue' in o) return attributes(obj(o.kvlistValue, `${path}.kvlistValue`).values, `${path}.kvlistValue`);
  return null;
}

/** A `KeyValue[]` list as an object. */
export function attributes(v: unknown, path: string): Record<string, Json> {
  const out: Record<string, Json> = {};
  list(v, path).forEach((kv, i) => {
    const o = obj(kv, `${path}[${i}]`);
    const key = optString(o.key, `${path}[${i}].key`);
    if (key === undefined) throw new OtlpShapeError(`${path}[${i}].key`, 'a string');
    const value = anyValue(o.value, `${path}[${i}].value`);
    // defined, not assigned: an attribute named `__proto__` stays an attribute (assigned, it set the prototype)
    if (key === '__proto__')
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    else out[key] = value;
  });
  return out;
}

/** Nanoseconds since the epoch (string or number) → a decimal string; "0" when absent. */
export function nanos(v: unknown, path: string): string {
  if (v === undefined || v === null) return '0';
  if (typeof v === 'number' && Number.isFinite(v)) return BigInt(Math.trunc(v)).toString();
  if (typeof v === 'string' && /^\d+$/.test(v)) return v;
  if (typeof v === 'object' && 'low' in (v as Obj) && 'high' in (v as Obj)) {
    const { low, high } = v as { low: number; high: number };
    return ((BigInt(high >>> 0) << 32n) + BigInt(low >>> 0)).toString();
  }
  throw new OtlpShapeError(path, 'a nanosecond timestamp');
}

export function nanosToMs(n: string): number {
  return Number(BigInt(n) / 1_000_000n);
}

/** A hex id of `bytes` bytes; undefined when absent or empty. */
const HEX_ID: Record<number, RegExp> = { 8: /^[0-9a-fA-F]{16}$/, 16: /^[0-9a-fA-F]{32}$/ };

export function hexId(v: unknown, bytes: 8 | 16, path: string): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' || !(HEX_ID[bytes] as RegExp).test(v)) {
    throw new OtlpShapeError(path, `${bytes * 2} hex digits`);
  }
  return v.toLowerCase();
}

/** `service.name` of a resource, else `unknown_service`. */
export function serviceOf(resource: Record<string, Json>): string {
  const name = resource['service.name'];
  return typeof name === 'string' && name !== '' ? name : 'unknown_service';
}
