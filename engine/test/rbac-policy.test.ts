/**
 * The access rules as pure functions: wildcard patterns, expose_functions filters, the order of the call decision,
 * the AuthResult parser, and how registration hooks' answers apply.
 */
import { describe, expect, it } from 'vitest';
import type { RbacConfig } from '@svc/config';
import { parseAuthResult } from '../src/modules/rbac/auth-result.js';
import {
  checkCall,
  filterMatches,
  PERMISSIVE_SESSION,
  wildcardMatch,
  withPrefix,
  type Session,
} from '../src/modules/rbac/policy.js';
import { applyFunctionHook, applyTriggerHook, applyTriggerTypeHook } from '../src/modules/rbac/registration-hooks.js';

const session = (over: Partial<Session> = {}): Session => ({ ...PERMISSIVE_SESSION, ...over });
const rbac = (expose: RbacConfig['expose_functions']): RbacConfig => ({ expose_functions: expose });

describe('wildcardMatch', () => {
  it.each([
    ['hello::world', 'hello::world', true],
    ['hello::world', 'hello::worldx', false],
    ['engine::*', 'engine::a::b', true],
    ['engine::*', 'other::a', false],
    ['*::public', 'x::y::public', true],
    ['*::public', 'x::private', false],
    ['*public*', 'mypublicfn', true],
    ['api::*::read', 'api::users::read', true],
    ['api::*::read', 'api::users::write', false],
    ['a*a', 'a', false],
    ['a*a', 'aa', true],
    ['*', '', true],
  ])('%s vs %s → %s', (pattern, value, expected) => {
    expect(wildcardMatch(pattern, value)).toBe(expected);
  });
});

describe('expose_functions filters', () => {
  it('match by id, by metadata value, by metadata pattern; metadata must be an object with every key', () => {
    expect(filterMatches({ match: 'api::*' }, 'api::x', undefined)).toBe(true);
    const meta = { metadata: { public: true, tier: 'match("gold*")' } };
    expect(filterMatches(meta, 'x', { public: true, tier: 'gold-plus' })).toBe(true);
    expect(filterMatches(meta, 'x', { public: true, tier: 'silver' })).toBe(false);
    expect(filterMatches(meta, 'x', { public: true })).toBe(false);
    expect(filterMatches(meta, 'x', { public: 'true', tier: 'gold' })).toBe(false);
    expect(filterMatches(meta, 'x', undefined)).toBe(false);
    expect(filterMatches({ metadata: { tags: ['a'] } }, 'x', { tags: ['a'] })).toBe(true);
    expect(filterMatches({ metadata: { tier: 'match("gold*")' } }, 'x', { tier: 5 })).toBe(false);
  });
});

describe('checkCall: forbidden, allowed, infrastructure, no rbac, exposed, denied', () => {
  const rules = rbac([{ match: 'api::*' }]);

  it('forbidden wins over everything, with its own remedy', () => {
    const s = session({
      forbiddenFunctions: new Set(['api::x', 'engine::workers::register']),
      allowedFunctions: new Set(['api::x']),
    });
    expect(checkCall(s, rules, 'api::x', undefined)).toEqual({
      allowed: false,
      message: "function 'api::x' not allowed (remove from rbac.forbidden_functions)",
    });
    expect(checkCall(s, undefined, 'engine::workers::register', undefined).allowed).toBe(false);
  });

  it('allowed functions and infrastructure functions pass unexposed', () => {
    const s = session({ allowedFunctions: new Set(['secret::fn']) });
    expect(checkCall(s, rules, 'secret::fn', undefined).allowed).toBe(true);
    expect(checkCall(s, rules, 'engine::log::info', undefined).allowed).toBe(true);
    expect(checkCall(s, rules, 'engine::baggage::get_all', undefined).allowed).toBe(true);
  });

  it('without rbac everything passes; with it only what is exposed', () => {
    expect(checkCall(session(), undefined, 'anything', undefined).allowed).toBe(true);
    expect(checkCall(session(), rules, 'api::y', undefined).allowed).toBe(true);
    expect(checkCall(session(), rules, 'engine::functions::list', undefined)).toEqual({
      allowed: false,
      message: "function 'engine::functions::list' not allowed (add to rbac.expose_functions)",
    });
    expect(checkCall(session(), rbac([]), 'api::y', undefined).allowed).toBe(false);
  });

  it('withPrefix namespaces only with a prefix', () => {
    expect(withPrefix(session(), 'a')).toBe('a');
    expect(withPrefix(session({ functionRegistrationPrefix: 't' }), 'a')).toBe('t::a');
  });
});

describe('parseAuthResult', () => {
  it('applies the defaults of an empty result', () => {
    const parsed = parseAuthResult({});
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.session.allowFunctionRegistration).toBe(true);
    expect(parsed.session.allowTriggerTypeRegistration).toBe(false);
    expect(parsed.session.allowedTriggerTypes).toBeUndefined();
    expect(parsed.session.context).toEqual({});
    expect(parsed.session.functionRegistrationPrefix).toBeUndefined();
  });

  it('reads every field', () => {
    const parsed = parseAuthResult({
      allowed_functions: ['a'],
      forbidden_functions: ['b'],
      allowed_trigger_types: ['http'],
      allow_trigger_type_registration: true,
      allow_function_registration: false,
      context: { user: 1 },
      function_registration_prefix: 'p',
    });
    expect(parsed.ok && parsed.session).toMatchObject({
      allowedFunctions: new Set(['a']),
      forbiddenFunctions: new Set(['b']),
      allowedTriggerTypes: new Set(['http']),
      allowTriggerTypeRegistration: true,
      allowFunctionRegistration: false,
      context: { user: 1 },
      functionRegistrationPrefix: 'p',
    });
  });

  it.each([
    [undefined, 'returned no result'],
    [null, 'returned no result'],
    ['yes', 'must return an object'],
    [[], 'must return an object'],
    [{ allowed_functions: 'all' }, '"allowed_functions" must be an array of strings'],
    [{ forbidden_functions: [1] }, '"forbidden_functions" must be an array of strings'],
    [{ allow_function_registration: 'no' }, '"allow_function_registration" must be a boolean'],
    [{ context: [] }, '"context" must be an object'],
    [{ function_registration_prefix: '' }, '"function_registration_prefix" must be a non-empty string'],
  ])('refuses %j: %s', (value, message) => {
    const parsed = parseAuthResult(value);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toContain(message);
  });
});

describe('registration hook answers', () => {
  const fn = { type: 'registerfunction' as const, id: 'a::b', description: 'd', metadata: { x: 1 } };

  it('an object accepts; its known fields replace the registered ones', () => {
    expect(applyFunctionHook(fn, {})).toEqual(fn);
    expect(applyFunctionHook(fn, { function_id: 'c::d', metadata: { y: 2 }, other: 1 })).toEqual({
      ...fn,
      id: 'c::d',
      metadata: { y: 2 },
    });
    const trigger = {
      type: 'registertrigger' as const,
      id: 't',
      trigger_type: 'http',
      function_id: 'f',
      config: { a: 1 },
    };
    expect(applyTriggerHook(trigger, { config: { b: 2 }, trigger_id: 't2' })).toEqual({
      ...trigger,
      id: 't2',
      config: { b: 2 },
    });
    const type = { type: 'registertriggertype' as const, id: 'my-type', description: 'x' };
    expect(applyTriggerTypeHook(type, { trigger_type_id: 'renamed' })).toEqual({ ...type, id: 'renamed' });
  });

  it.each([null, undefined, false, 'ok', [], 0])('anything else (%j) refuses', (answer) => {
    expect(applyFunctionHook(fn, answer)).toBeUndefined();
  });
});
