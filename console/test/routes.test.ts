/** Route matching and the mapping of engine errors to HTTP statuses (pure parts of the console backend). */
import { InvocationError } from '@svc/sdk';
import { describe, expect, it } from 'vitest';
import { ConsoleInputError, errorResponse } from '../src/http-shape.js';
import { matchRoute } from '../src/route.js';
import { CONSOLE_ROUTES } from '../src/routes.js';

describe('matchRoute', () => {
  it('matches method and path, and reads :params', () => {
    const m = matchRoute(CONSOLE_ROUTES, 'DELETE', '_console/dlq/orders/messages/m-1/discard');
    expect(m?.route.name).toBe('dlq_discard_message');
    expect(m?.params).toEqual({ topic: 'orders', id: 'm-1' });
  });

  it('a fixed segment wins over a parameter only by order; method matters', () => {
    expect(matchRoute(CONSOLE_ROUTES, 'GET', '_console/states/groups')?.route.name).toBe('state_groups_list');
    expect(matchRoute(CONSOLE_ROUTES, 'POST', '_console/states/cart/item')?.route.name).toBe('state_item_set');
    expect(matchRoute(CONSOLE_ROUTES, 'PATCH', '_console/invoke')).toBeUndefined();
    expect(matchRoute(CONSOLE_ROUTES, 'GET', '_console/functions/a/b')).toBeUndefined();
  });

  it('every route has a unique name and a unique method + path', () => {
    const names = CONSOLE_ROUTES.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    const keys = CONSOLE_ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('errorResponse', () => {
  const err = (code: string) => new InvocationError({ code, message: 'm', function_id: 'f' });

  it.each([
    ['connection_closed', 503],
    ['TIMEOUT', 504],
    ['invocation_timeout', 504],
    ['function_not_found', 404],
    ['invocation_failed', 502],
  ])('%s → %i', (code, status) => {
    const res = errorResponse(err(code));
    expect(res.status_code).toBe(status);
    expect(res.body).toEqual({ error: { code, message: 'm', function_id: 'f' } });
  });

  it('bad input is a 400; anything else a 500', () => {
    expect(errorResponse(new ConsoleInputError('x: "y" missing')).status_code).toBe(400);
    expect(errorResponse(new Error('boom'))).toMatchObject({ status_code: 500, body: { error: { message: 'boom' } } });
  });
});
