import { describe, expect, it } from 'vitest';
import { RouteConflictError, RouteTable, type HttpMethod, type RouteTarget } from '../src/server/route-table.js';

function target(triggerId: string, method: HttpMethod, apiPath: string, functionId = `fn::${triggerId}`): RouteTarget {
  return {
    triggerId,
    functionId,
    apiPath,
    method,
    conditionFunctionId: undefined,
    middlewareFunctionIds: [],
    metadata: undefined,
  };
}

describe('RouteTable', () => {
  it('matches static and :param segments, with or without a leading slash', () => {
    const t = new RouteTable();
    t.add(target('a', 'GET', 'users/:id'));
    t.add(target('b', 'GET', '/users/:id/orders/:orderId'));
    const r = t.lookup('GET', '/users/42/orders/7');
    expect(r.kind).toBe('found');
    if (r.kind !== 'found') return;
    expect(r.match.target.triggerId).toBe('b');
    expect(r.match.params).toEqual({ id: '42', orderId: '7' });
    const a = t.lookup('GET', '/users/a%20b');
    expect(a.kind === 'found' && a.match.params).toEqual({ id: 'a b' });
  });

  it('prefers a static segment and backtracks to the parameter', () => {
    const t = new RouteTable();
    t.add(target('p', 'GET', '/users/:id/profile'));
    t.add(target('s', 'GET', '/users/me'));
    const me = t.lookup('GET', '/users/me');
    expect(me.kind === 'found' && me.match.target.triggerId).toBe('s');
    const profile = t.lookup('GET', '/users/me/profile');
    expect(profile.kind === 'found' && profile.match.params).toEqual({ id: 'me' });
  });

  it('reports 405 with the allowed methods, HEAD served by GET', () => {
    const t = new RouteTable();
    t.add(target('g', 'GET', '/items'));
    t.add(target('p', 'POST', '/items'));
    const r = t.lookup('DELETE', '/items');
    expect(r).toEqual({ kind: 'method_not_allowed', allow: ['GET', 'HEAD', 'POST'] });
    expect(t.lookup('HEAD', '/items').kind).toBe('found');
    expect(t.lookup('GET', '/nope').kind).toBe('not_found');
    expect(t.lookup('GET', '/items/1').kind).toBe('not_found');
  });

  it('refuses another function on the same method and path, naming the holder', () => {
    const t = new RouteTable();
    t.add(target('a', 'POST', '/orders', 'orders::create'));
    expect(() => t.add(target('b', 'POST', '/orders', 'orders::other'))).toThrow(
      /POST \/orders is already bound to function 'orders::create'/,
    );
    // A different method on the same path is fine.
    t.add(target('c', 'GET', '/orders', 'orders::list'));
  });

  it('refuses a parameter with another name at the same position', () => {
    const t = new RouteTable();
    t.add(target('a', 'GET', '/users/:id'));
    let err: unknown;
    try {
      t.add(target('b', 'POST', '/users/:userId'));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RouteConflictError);
    expect((err as Error).message).toMatch(/parameter ':userId' is ':id' there/);
  });

  it('accepts replicas binding the same function, serving while any remains', () => {
    const t = new RouteTable();
    t.add(target('r1', 'GET', '/x', 'svc::x'));
    t.add(target('r2', 'GET', '/x', 'svc::x'));
    t.remove('r1');
    expect(t.lookup('GET', '/x').kind).toBe('found');
    t.remove('r2');
    expect(t.lookup('GET', '/x').kind).toBe('not_found');
  });

  it('frees a parameter name once its routes are gone, and re-adding a trigger id is idempotent', () => {
    const t = new RouteTable();
    t.add(target('a', 'GET', '/users/:id'));
    t.add(target('a', 'GET', '/users/:id'));
    expect(t.size).toBe(1);
    expect(t.remove('a')).toBe(true);
    expect(t.remove('a')).toBe(false);
    t.add(target('b', 'GET', '/users/:name'));
    const r = t.lookup('GET', '/users/x');
    expect(r.kind === 'found' && r.match.params).toEqual({ name: 'x' });
  });

  it('rejects malformed paths with a reason', () => {
    const t = new RouteTable();
    expect(() => t.add(target('a', 'GET', '/a/:'))).toThrow(/parameter ':' must be/);
    expect(() => t.add(target('b', 'GET', '/a/:x/:x'))).toThrow(/appears twice/);
    expect(() => t.add(target('c', 'GET', '/a b'))).toThrow(/whitespace/);
  });
  it('answers repeated lookups of a static route the same way, and forgets them when the table changes', () => {
    const t = new RouteTable();
    t.add(target('a', 'GET', '/static/path'));
    const first = t.lookup('GET', '/static/path');
    expect(first.kind === 'found' && first.match.target.functionId).toBe('fn::a');
    expect(t.lookup('GET', '/static/path')).toBe(first);
    t.remove('a');
    expect(t.lookup('GET', '/static/path').kind).toBe('not_found');
    t.add(target('b', 'GET', '/static/path'));
    const again = t.lookup('GET', '/static/path');
    expect(again.kind === 'found' && again.match.target.functionId).toBe('fn::b');
    t.add(target('c', 'POST', '/static/other'));
    expect(t.lookup('GET', '/static/other')).toEqual({ kind: 'method_not_allowed', allow: ['POST'] });
  });
});
