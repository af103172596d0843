/**
 * Redis goes away under svc-state and comes back (a private redis-server on a free port, `kill -9` and restart):
 * calls made while it is down are answered with the function's error code (never left hanging), svc-state
 * stays up, and once Redis is back the calls succeed again. Needs the `redis-server` binary; skipped without it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SvcClient } from '@svc/sdk';
import { freePort, startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';
import { failure, hasCode, sdkClient, startState } from './state-helpers.js';

const haveRedisServer = (() => {
  try {
    execFileSync('which', ['redis-server'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

let engine: EngineProcess;
let state: Child;
let client: SvcClient;
let redis: ChildProcess | undefined;
let port: number;
let dir: string;

function startRedis(): ChildProcess {
  return spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    {
      stdio: 'ignore',
    },
  );
}

function portAnswers(portNumber: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(portNumber, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function killRedis(): Promise<void> {
  const proc = redis;
  if (proc === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGKILL');
  await exited;
}

describe.skipIf(!haveRedisServer)('svc-state when Redis goes away', () => {
  beforeAll(async () => {
    port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'svc-state-redis-'));
    redis = startRedis();
    engine = await startEngine();
    const adapter = {
      class: 'modules::state::adapters::KvserverAdapter',
      config: { kvserver_url: `redis://127.0.0.1:${port}`, key_prefix: 'outage:' },
    };
    await waitFor(() => portAnswers(port), 15_000, 'the private redis-server');
    state = await startState(engine.url, { adapter });
    client = await sdkClient(engine.url);
  });

  afterAll(async () => {
    await client?.shutdown();
    await Promise.all([state?.stop(), engine?.stop()]);
    await killRedis();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails calls fast while Redis is down and serves again once it is back', async () => {
    const set = (value: number) =>
      client.trigger({ function_id: 'state::set', payload: { scope: 'o', key: 'k', value }, timeoutMs: 20_000 });
    await set(1);
    await killRedis();
    // Answered with SET_ERROR by svc-state, not the caller's TIMEOUT after 20 s: the call did not hang.
    const err = await failure(set(2));
    expect(hasCode(err, 'SET_ERROR')).toBe(true);
    expect(state.exited).toBe(false);

    redis = startRedis();
    await waitFor(
      () =>
        set(3).then(
          () => true,
          () => false,
        ),
      15_000,
      'writes to succeed again',
    );
    expect(await client.trigger({ function_id: 'state::get', payload: { scope: 'o', key: 'k' } })).toBe(3);
  });
});
