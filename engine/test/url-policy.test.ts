/**
 * The HTTP-function URL policy as pure functions: allowlist ports (an entry without a port matches any port of its
 * host; an explicit port pins it) and every standard IPv6 form that carries an IPv4 address, judged by the address
 * it carries, both on the URL (registration) and on resolved addresses (the connect path).
 */
import { describe, expect, it } from 'vitest';
import { checkIp, PolicyError, resolveChecked, UrlPolicy } from '../src/modules/http-functions/index.js';

const allowed = (address: string, blockPrivate = true): boolean => checkIp(address, blockPrivate).allowed;

describe('url_allowlist ports', () => {
  const policy = new UrlPolicy({
    url_allowlist: ['api.example.test', 'https://pinned.example.test:8443', 'any.example.test:*'],
    block_private_ips: true,
    require_https: false,
  });

  it('an entry without a port matches every port of its host', () => {
    for (const url of [
      'https://api.example.test/',
      'https://api.example.test:8443/x',
      'http://api.example.test:8080/',
      'http://api.example.test/',
    ]) {
      expect(() => policy.check(url), url).not.toThrow();
    }
    expect(() => policy.check('https://api.example.test.evil.test:8443/')).toThrow(PolicyError);
  });

  it('an explicit port pins the entry to that port', () => {
    expect(() => policy.check('https://pinned.example.test:8443/')).not.toThrow();
    expect(() => policy.check('https://pinned.example.test/')).toThrow(/matches no url_allowlist entry/);
    expect(() => policy.check('https://pinned.example.test:9443/')).toThrow(PolicyError);
    expect(() => policy.check('https://any.example.test:1234/')).not.toThrow();
  });
});

/** [form, address carrying a blocked IPv4 address, address carrying a public one]. */
const FORMS: [string, string, string][] = [
  ['IPv4-mapped', '::ffff:127.0.0.1', '::ffff:8.8.8.8'],
  ['IPv4-mapped, hex', '::ffff:7f00:1', '::ffff:808:808'],
  ['IPv4-translated (SIIT)', '::ffff:0:127.0.0.1', '::ffff:0:8.8.8.8'],
  ['IPv4-compatible', '::127.0.0.1', '::8.8.8.8'],
  ['IPv4-compatible, private', '::10.0.0.1', '::1.1.1.1'],
  ['NAT64 64:ff9b::/96', '64:ff9b::127.0.0.1', '64:ff9b::8.8.8.8'],
  ['NAT64, hex, cloud metadata', '64:ff9b::a9fe:a9fe', '64:ff9b::808:808'],
  ['6to4 2002::/16', '2002:7f00:1::1', '2002:808:808::1'],
  ['6to4, private', '2002:c0a8:101::', '2002:101:101::'],
  ['Teredo, client loopback', '2001:0:808:808::80ff:fffe', '2001:0:808:808::f7f7:fbfb'],
  ['Teredo, server private', '2001:0:a00:1::f7f7:fbfb', '2001:0:808:404::f7f7:fbfb'],
];

describe('IPv6 addresses that carry an IPv4 address', () => {
  for (const [form, blocked, open] of FORMS) {
    it(`${form}: judged by the carried address`, () => {
      const verdict = checkIp(blocked, true);
      expect(verdict.allowed, blocked).toBe(false);
      if (!verdict.allowed) expect(verdict.reason).toMatch(/carried by/);
      expect(allowed(open), open).toBe(true);
    });
  }

  it('the unspecified address is refused in every form, even without block_private_ips', () => {
    for (const address of ['::ffff:0.0.0.0', '::ffff:0:0.0.0.0', '64:ff9b::', '2002::1', '2001:0:0:0::ffff:ffff']) {
      expect(allowed(address, false), address).toBe(false);
    }
  });

  it('without block_private_ips a carried loopback is allowed like the plain one; :: and ::1 keep their meaning', () => {
    expect(allowed('::ffff:127.0.0.1', false)).toBe(true);
    expect(allowed('64:ff9b::7f00:1', false)).toBe(true);
    expect(allowed('::1', false)).toBe(true);
    expect(allowed('::1', true)).toBe(false);
    expect(allowed('::', false)).toBe(false);
  });

  it('plain IPv6 addresses keep their own ranges', () => {
    expect(allowed('2606:4700:4700::1111')).toBe(true);
    expect(allowed('fd00::1')).toBe(false);
    expect(allowed('fe80::1')).toBe(false);
    expect(allowed('2001:db8::1')).toBe(false);
  });

  it('the URL check refuses a literal in any of these forms', () => {
    const policy = new UrlPolicy({ url_allowlist: ['*'], block_private_ips: true, require_https: false });
    for (const [, blocked, open] of FORMS) {
      expect(() => policy.check(`http://[${blocked}]:8080/`), blocked).toThrow(PolicyError);
      expect(() => policy.check(`http://[${open}]/`), open).not.toThrow();
    }
  });

  it('the connect path refuses a name that resolves to any of these forms', async () => {
    for (const [, blocked] of FORMS) {
      const options = { blockPrivateIps: true, connectTimeoutMs: 1000, resolver: async () => [blocked] };
      await expect(resolveChecked('rebind.example.test', options), blocked).rejects.toThrow(PolicyError);
    }
    const mapped = await resolveChecked('[::ffff:8.8.8.8]', { blockPrivateIps: true, connectTimeoutMs: 1000 });
    expect(mapped).toBe('::ffff:8.8.8.8');
  });
});
