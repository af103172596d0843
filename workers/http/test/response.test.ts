import { describe, expect, it } from 'vitest';
import { serializeResult } from '../src/server/response.js';

const text = (r: { body: Buffer | string }): string => (typeof r.body === 'string' ? r.body : r.body.toString('utf8'));

describe('serializeResult (docs/protocol.md §5)', () => {
  it('a non-object result is 200 with {}', () => {
    for (const value of [undefined, null, 'hi', 42, [1, 2]]) {
      const r = serializeResult(value);
      expect(r.status).toBe(200);
      expect(text(r)).toBe('{}');
      expect(r.headers['content-type']).toBe('application/json');
    }
  });

  it('defaults: status 200, body {} when missing, JSON with content-type added', () => {
    expect(text(serializeResult({ status_code: 201 }))).toBe('{}');
    const r = serializeResult({ body: { a: 1 } });
    expect(r.status).toBe(200);
    expect(text(r)).toBe('{"a":1}');
    expect(r.headers['content-type']).toBe('application/json');
    expect(text(serializeResult({ body: 'plain' }))).toBe('"plain"');
    expect(text(serializeResult({ body: null }))).toBe('null');
  });

  it('user content-type: string raw, null empty, other values as JSON text', () => {
    const raw = serializeResult({ headers: { 'Content-Type': 'text/html' }, body: '<b>x</b>' });
    expect(text(raw)).toBe('<b>x</b>');
    expect(raw.headers['content-type']).toBe('text/html');
    expect(serializeResult({ headers: { 'content-type': 'text/plain' }, body: null }).body.length).toBe(0);
    const obj = serializeResult({ headers: { 'content-type': 'text/plain' }, body: { a: 1 } });
    expect(text(obj)).toBe('{"a":1}');
    expect(obj.headers['content-type']).toBe('text/plain');
  });

  it('headers as an array of "Name: value" strings', () => {
    const r = serializeResult({ status_code: 302, headers: ['Location: /next', 'X-A: 1', 'x-a: 2'] });
    expect(r.status).toBe(302);
    expect(r.headers).toMatchObject({ location: '/next', 'x-a': '1, 2' });
    const cookies = serializeResult({ headers: ['Set-Cookie: a=1', 'Set-Cookie: b=2'] });
    expect(cookies.headers['set-cookie']).toEqual(['a=1', 'b=2']);
  });

  it('refuses what cannot be sent, naming the problem', () => {
    expect(() => serializeResult({ status_code: 99 })).toThrow(/status_code must be an integer/);
    expect(() => serializeResult({ status_code: '200' })).toThrow(/status_code/);
    expect(() => serializeResult({ headers: { 'bad name': 'x' } })).toThrow(/header name/);
    expect(() => serializeResult({ headers: { 'x-a': 'a\r\nb' } })).toThrow(/CR, LF/);
    expect(() => serializeResult({ headers: ['nocolon'] })).toThrow(/Name: value/);
  });
});
