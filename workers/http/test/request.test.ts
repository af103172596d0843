import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildPayload, LeasedRef, payloadText, type PayloadInput } from '../src/server/payload.js';
import { MAX_JSON_DEPTH, parseBody, textNestsDeeperThan } from '../src/server/request-body.js';
import { splitUrl } from '../src/server/request-handler.js';
import { ConcurrencyLimiter } from '../src/server/concurrency-limiter.js';
import { CorsPolicy } from '../src/server/cors.js';

describe('request → payload', () => {
  it('builds the payload of docs/protocol.md §5', () => {
    const { pathname, search } = splitUrl('/users/42?q=x&q=y&n=1#frag');
    expect(pathname).toBe('/users/42');
    const p = buildPayload({
      method: 'POST',
      apiPath: '/users/:id',
      search,
      params: { id: '42' },
      headers: { 'content-type': 'application/json', 'x-multi': ['a', 'b'] },
      body: { a: 1 },
    });
    expect(p).toEqual({
      query_params: { q: 'y', n: '1' },
      path_params: { id: '42' },
      headers: { 'content-type': 'application/json', 'x-multi': 'a, b' },
      path: '/users/:id',
      method: 'POST',
      body: { a: 1 },
      trigger: { type: 'http', path: '/users/:id', method: 'POST' },
    });
  });

  it('writes the text JSON.stringify writes of the same payload, whatever the request holds', () => {
    const text = fc.string({ unit: 'binary' });
    const json = fc.jsonValue();
    const ref = fc.record({
      channel_id: fc.uuid(),
      access_key: fc.string({ unit: fc.constantFrom(...'AZaz09-_'.split('')), minLength: 32, maxLength: 32 }),
      direction: fc.constantFrom('read' as const, 'write' as const),
    });
    const input: fc.Arbitrary<PayloadInput> = fc.record({
      method: fc.oneof(fc.constantFrom('GET', 'POST'), text),
      apiPath: fc.oneof(fc.constantFrom('/users/:id', '/a"b\\c'), text),
      search: fc.oneof(fc.constant(''), fc.constant('q=x&q=y&n=1'), text),
      params: fc.dictionary(text, text),
      headers: fc.dictionary(text, fc.oneof(text, fc.array(text))),
      body: fc.oneof(fc.constant(null), fc.constant(undefined), json, text),
    });
    const refs = fc.option(
      fc
        .tuple(ref, ref, fc.boolean())
        .map(([body, response, leased]) =>
          leased
            ? [
                new LeasedRef(body.channel_id, body.access_key, body.direction),
                new LeasedRef(response.channel_id, response.access_key, response.direction),
              ]
            : [body, response],
        ),
      { nil: undefined },
    );
    fc.assert(
      fc.property(input, refs, (request, pair) => {
        const written = payloadText(request, pair?.[0], pair?.[1]).text;
        expect(written).toBe(JSON.stringify(buildPayload(request, pair?.[0], pair?.[1])));
      }),
    );
  });

  it('splits absolute-form targets and odd URLs without throwing', () => {
    expect(splitUrl('http://h:1/a?b=1')).toEqual({ pathname: '/a', search: 'b=1' });
    expect(splitUrl('*')).toEqual({ pathname: '/', search: '' });
  });

  it('parses bodies by content type', () => {
    const b = (s: string) => Buffer.from(s);
    expect(parseBody(b('{"a":1}'), 'application/json; charset=utf-8')).toEqual({ a: 1 });
    expect(parseBody(b('[1]'), 'application/vnd.api+json')).toEqual([1]);
    expect(parseBody(b('hello'), 'text/plain')).toBe('hello');
    expect(parseBody(b('a=1&b=2'), 'application/x-www-form-urlencoded')).toEqual({ a: '1', b: '2' });
    expect(parseBody(b('\x00\x01'), 'application/octet-stream')).toBeNull();
    expect(parseBody(Buffer.alloc(0), 'application/json')).toBeNull();
    expect(() => parseBody(b('{"a":'), 'application/json')).toThrow(/request body is not valid JSON/);
  });

  it('refuses a JSON body nested deeper than the limit, counting no bracket inside a string', () => {
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    expect(parseBody(Buffer.from(nested(MAX_JSON_DEPTH)), 'application/json')).toBeInstanceOf(Array);
    expect(() => parseBody(Buffer.from(nested(MAX_JSON_DEPTH + 1)), 'application/json')).toThrow(
      `request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels (the limit)`,
    );
    // 50,000 levels parse, but writing them into the call would overflow the stack: refused as the client's error
    expect(() => parseBody(Buffer.from(nested(50_000)), 'application/json')).toThrow(/deeper than/);
    const quoted = JSON.stringify({ s: '[{"\\'.repeat(3000), d: JSON.parse(nested(10)) });
    expect(parseBody(Buffer.from(quoted), 'application/json')).toMatchObject({ d: [[[[[[[[[[]]]]]]]]]] });
  });

  it('measures nesting as JSON.parse would build it', () => {
    const depth = (value: unknown): number =>
      typeof value === 'object' && value !== null ? 1 + Math.max(0, ...Object.values(value).map(depth)) : 0;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 9 }), (value, limit) => {
        const text = Buffer.from(JSON.stringify(value));
        expect(textNestsDeeperThan(text, limit)).toBe(depth(value) > limit);
      }),
    );
  });
});

describe('ConcurrencyLimiter', () => {
  it('admits up to the limit, releases once per slot, and reports idle', async () => {
    const l = new ConcurrencyLimiter(2);
    const a = l.tryAcquire();
    const b = l.tryAcquire();
    expect(l.tryAcquire()).toBeUndefined();
    a?.release();
    a?.release();
    expect(l.inFlight).toBe(1);
    const c = l.tryAcquire();
    expect(c).toBeDefined();
    expect(l.tryAcquire()).toBeUndefined();
    const idle = l.idle();
    b?.release();
    c?.release();
    await idle;
    expect(l.inFlight).toBe(0);
  });
});

describe('CorsPolicy', () => {
  it('is permissive without config', () => {
    const c = new CorsPolicy(undefined);
    expect(c.responseHeaders({ origin: 'https://a.test' })).toEqual({ 'access-control-allow-origin': '*' });
    expect(c.isPreflight('OPTIONS', { origin: 'x', 'access-control-request-method': 'POST' })).toBe(true);
  });

  it('allows only configured origins and lists configured methods', () => {
    const c = new CorsPolicy({ allowed_origins: ['https://app.test'], allowed_methods: ['GET', 'POST'] });
    expect(c.responseHeaders({ origin: 'https://evil.test' })).toEqual({});
    const h = c.preflightHeaders({ origin: 'https://app.test', 'access-control-request-headers': 'x-a' });
    expect(h).toMatchObject({
      'access-control-allow-origin': 'https://app.test',
      'access-control-allow-methods': 'GET, POST',
      'access-control-allow-headers': 'x-a',
      vary: 'Origin',
    });
  });
});
