/** Which engine a `svc` command talks to: flags, then SVC_URL, then SVC_PORT, then the default; and "did you mean". */
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../src/args.js';
import { UsageError } from '../src/exit-codes.js';
import { closest } from '../src/suggest.js';
import { TARGET_FLAGS, engineUrl } from '../src/target.js';

const url = (argv: string[], env: NodeJS.ProcessEnv = {}): string =>
  engineUrl(parseArgs(argv, { ...TARGET_FLAGS }).flags, env);

describe('engineUrl', () => {
  it('defaults to ws://localhost:49134', () => {
    expect(url([])).toBe('ws://localhost:49134');
    expect(url([], { SVC_URL: '' })).toBe('ws://localhost:49134'); // empty counts as unset, as in the SDK
  });

  it('reads SVC_URL, then SVC_PORT', () => {
    expect(url([], { SVC_URL: 'ws://engine.internal:5000' })).toBe('ws://engine.internal:5000');
    expect(url([], { SVC_PORT: '50134' })).toBe('ws://localhost:50134');
    expect(url([], { SVC_URL: 'ws://e:1', SVC_PORT: '2' })).toBe('ws://e:1');
  });

  it('--address and --port win over the environment', () => {
    expect(url(['--address', 'h'], { SVC_URL: 'ws://e:1' })).toBe('ws://h:49134');
    expect(url(['--port', '7'], { SVC_URL: 'ws://e:1' })).toBe('ws://e:7');
    expect(url(['--address', 'wss://x.example/svc', '--port', '9'])).toBe('wss://x.example:9/svc');
    expect(url(['--port', '7'], { SVC_PORT: '8' })).toBe('ws://localhost:7');
  });

  it('a bad SVC_PORT or --port is a usage error naming it', () => {
    expect(() => url([], { SVC_PORT: 'abc' })).toThrow(UsageError);
    expect(() => url([], { SVC_PORT: '70000' })).toThrow(/SVC_PORT must be a port number/);
    expect(() => url(['--port', '0'])).toThrow(/--port must be an integer between 1 and 65535/);
  });
});

describe('closest', () => {
  const ids = ['orders::create', 'orders::cancel', 'inventory::reserve', 'state::get'];

  it('suggests the nearest ids, nearest first', () => {
    expect(closest('orders::creat', ids)).toEqual(['orders::create']);
    expect(closest('Orders::Cancle', ids)[0]).toBe('orders::cancel');
    expect(closest('state:get', ids)).toEqual(['state::get']);
  });

  it('suggests nothing when nothing is close', () => {
    expect(closest('billing::refund', ids)).toEqual([]);
  });
});
