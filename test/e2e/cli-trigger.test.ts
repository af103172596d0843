/** `svc trigger` against a real engine and a real worker: a result, a remote error, a timeout, no engine. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ROOT,
  freePort,
  spawnWorker,
  startEngine,
  waitForFunction,
  type Child,
  type EngineProcess,
} from '../harness.js';

const CLI = join(ROOT, 'cli/dist/main.js');

function svc(args: string[], timeoutMs = 15000): { status: number | null; stdout: string; stderr: string } {
  const res = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: timeoutMs });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

let engine: EngineProcess;
let worker: Child;

beforeAll(async () => {
  engine = await startEngine();
  worker = spawnWorker('test/e2e/cli-fixtures/worker.mjs', { SVC_URL: engine.url });
  await waitForFunction(engine.url, 'clitest::slow');
});

afterAll(async () => {
  await worker?.stop();
  await engine?.stop();
});

describe('svc trigger', () => {
  it('prints the JSON result; key=value pairs parse as numbers, booleans, JSON; --json is the base', () => {
    const res = svc([
      'trigger',
      'clitest::echo',
      'qty=2',
      'price=9.5',
      'gift=true',
      'note=null',
      'tags=["a","b"]',
      'name=ada lovelace',
      'zip:=01234',
      'user.id=7',
      '--json',
      '{"base":1,"qty":1}',
      '--port',
      String(engine.port),
    ]);
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({
      received: {
        base: 1,
        qty: 2,
        price: 9.5,
        gift: true,
        note: null,
        tags: ['a', 'b'],
        name: 'ada lovelace',
        zip: '01234',
        user: { id: 7 },
      },
    });
  });

  it('a remote error prints {code, message} on stderr and exits 1', () => {
    const res = svc(['trigger', 'clitest::fail', '--address', '127.0.0.1', '--port', String(engine.port)]);
    expect(res.status).toBe(1);
    expect(res.stdout).toBe('');
    const error = JSON.parse(res.stderr.trim()) as { code: string; message: string };
    expect(error.message).toContain('out of stock');
    expect(typeof error.code).toBe('string');
  });

  it('an unknown function is an error too', () => {
    const res = svc(['trigger', 'clitest::nope', '--port', String(engine.port)]);
    expect(res.status).toBe(1);
    expect(JSON.parse(res.stderr.trim())).toMatchObject({ code: 'function_not_found' });
  });

  it('no result within --timeout-ms exits 3 with a timeout error', () => {
    const t0 = Date.now();
    const res = svc(['trigger', 'clitest::slow', '--port', String(engine.port), '--timeout-ms', '300']);
    expect(res.status).toBe(3);
    expect(JSON.parse(res.stderr.trim()).code).toMatch(/timeout/i);
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('no engine at the address exits 4', async () => {
    const res = svc(['trigger', 'clitest::echo', '--port', String(await freePort())]);
    expect(res.status).toBe(4);
    expect(JSON.parse(res.stderr.trim())).toMatchObject({ code: 'engine_unreachable' });
  });

  it.each([
    [['trigger'], 'needs a function id'],
    [['trigger', 'a::b', '--port', 'abc'], '--port must be an integer'],
    [['trigger', 'a::b', 'novalue'], 'expected key=value'],
    [['trigger', 'a::b', '--json', '{bad'], '--json is not valid JSON'],
    [['--bogus'], 'unknown option --bogus'],
    [['frobnicate'], 'unknown command'],
  ])('bad usage %j exits 2', (args, message) => {
    const res = svc(args);
    expect(res.status).toBe(2);
    expect(res.stderr).toContain(message);
  });
});

describe('svc trigger <function_id> --help', () => {
  it('prints the help and the function as the engine describes it', () => {
    const res = svc(['trigger', 'clitest::echo', '--help', '--port', String(engine.port)]);
    expect(res.status).toBe(0);
    expect(res.stdout).toContain('Usage: svc trigger');
    expect(res.stdout).toContain('clitest::echo');
    expect(res.stdout.slice(res.stdout.indexOf('engine::functions::info'))).toContain('"clitest::echo"');
  });
});

describe('svc help and version', () => {
  it.each([
    [['--help'], 'svc trigger <function_id>'],
    [['-h'], 'Exit codes'],
    [['trigger', '--help'], '--timeout-ms'],
    [['start', '--help'], 'shutdown_grace_ms'],
    [['help', 'trigger'], 'key=value'],
  ])('%j', (args, text) => {
    const res = svc(args);
    expect(res.status).toBe(0);
    expect(res.stdout).toContain(text);
  });

  it('--version prints the version', () => {
    const res = svc(['--version']);
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/^svc \d+\.\d+\.\d+/);
  });
});
