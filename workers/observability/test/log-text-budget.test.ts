import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../src/otlp/decode-logs.js';
import { MAX_LOG_RECORD_CHARS, TRUNCATED_ATTRIBUTE, withinTextBudget } from '../src/otlp/log-text-budget.js';
import type { Json } from '../src/otlp/values.js';

const record = (body: Json, attributes: Record<string, Json> = {}): LogRecord => ({
  timestamp_unix_nano: '1700000000000000000',
  observed_timestamp_unix_nano: '1700000000000000000',
  severity_number: 9,
  severity_text: 'INFO',
  body,
  attributes,
  trace_id: null,
  span_id: null,
  resource: {},
  service_name: 'w',
  instrumentation_scope_name: null,
  instrumentation_scope_version: null,
});

const textLength = (v: Json): number =>
  typeof v === 'string'
    ? v.length
    : v === null || typeof v !== 'object'
      ? 0
      : Array.isArray(v)
        ? v.reduce((n: number, x) => n + textLength(x), 0)
        : Object.entries(v).reduce((n, [k, x]) => n + k.length + textLength(x), 0);

describe('withinTextBudget', () => {
  it('keeps a record that fits as it is', () => {
    const r = record({ msg: 'hello', n: 1 }, { 'http.method': 'GET' });
    expect(withinTextBudget(r)).toBe(r);
  });

  it('cuts a long body, says how much was left out, and marks the record', () => {
    const r = withinTextBudget(record('L'.repeat(5 * 1024 * 1024), { a: 'x' }));
    expect(typeof r.body).toBe('string');
    expect((r.body as string).startsWith('L'.repeat(MAX_LOG_RECORD_CHARS))).toBe(true);
    expect(r.body).toMatch(new RegExp(`… \\[${5 * 1024 * 1024 - MAX_LOG_RECORD_CHARS} more characters not kept\\]$`));
    expect(r.attributes[TRUNCATED_ATTRIBUTE]).toBe(true);
  });

  it('bounds objects of many keys and arrays of many strings, keeping keys as keys', () => {
    const many: Record<string, Json> = {};
    for (let i = 0; i < 100_000; i++) many[`key-${i}`] = `value-${i}`;
    const r = withinTextBudget(record({ many, list: Array.from({ length: 100_000 }, (_, i) => `item ${i}`) }));
    expect(textLength(r.body)).toBeLessThanOrEqual(MAX_LOG_RECORD_CHARS + 100);
    expect(r.attributes[TRUNCATED_ATTRIBUTE]).toBe(true);
    const small = withinTextBudget(record({ k: 1 }, many));
    expect(textLength(small.attributes)).toBeLessThanOrEqual(MAX_LOG_RECORD_CHARS + 100);
  });

  it('keeps a `__proto__` key as a key of a cut object', () => {
    const body = JSON.parse(`{"__proto__":"kept","big":"${'x'.repeat(MAX_LOG_RECORD_CHARS + 10)}"}`) as Json;
    const cutBody = withinTextBudget(record(body)).body as Record<string, Json>;
    expect(Object.getPrototypeOf(cutBody)).toBe(Object.prototype);
    expect(Object.keys(cutBody)).toEqual(['__proto__', 'big']);
    expect(Object.getOwnPropertyDescriptor(cutBody, '__proto__')?.value).toBe('kept');
  });
});
