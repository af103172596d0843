/**
 * `auth_function` (workers/stream/README.md, "Client socket and `auth_function`"): called before the upgrade with the
 * request's headers, path, raw query and address; a denial is HTTP 401, a failure 500, a hang 503 at the auth timeout,
 * never a WebSocket. The context it returns reaches the join handlers.
 */
import type { SvcClient } from '@svc/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, waitFor, type EngineProcess } from '../harness.js';
import {
  rawClient,
  sdkClient,
  startStream,
  upgradeResponse,
  upgradeStatus,
  type StreamProcess,
} from './stream-helpers.js';

const AUTH_TIMEOUT_MS = 1000;

interface AuthInput {
  headers: Record<string, string>;
  path: string;
  query_params: Record<string, string[]>;
  addr: string;
}

let engine: EngineProcess;
let stream: StreamProcess;
let unregistered: StreamProcess;
let worker: SvcClient;
const authCalls: AuthInput[] = [];
const joins: Array<{ context: unknown }> = [];

beforeAll(async () => {
  engine = await startEngine();
  worker = await sdkClient(engine.url);
  worker.registerFunction('test::auth', async (input: AuthInput) => {
    authCalls.push(input);
    const token = input.query_params.token?.[0];
    if (token === 'good') return { context: { userId: 'u_1', roles: ['viewer'] } };
    if (token === 'boom') throw new Error('database down at /srv/secret/path.js');
    if (token === 'hang') return new Promise(() => undefined);
    if (token === 'anon') return {};
    return null; // anything else: no
  });
  worker.registerFunction('test::join', async (event: { context: unknown }) => {
    joins.push(event);
    return {};
  });
  worker.registerTrigger({ type: 'stream:join', function_id: 'test::join', config: {} });
  stream = await startStream(engine.url, { auth_function: 'test::auth', auth_timeout_ms: AUTH_TIMEOUT_MS });
  unregistered = await startStream(engine.url, { auth_function: 'test::missing', auth_timeout_ms: AUTH_TIMEOUT_MS });
});

afterAll(async () => {
  await worker?.shutdown();
  await Promise.all([stream?.stop(), unregistered?.stop()]);
  await engine?.stop();
});

describe('svc-stream auth_function', () => {
  it('passes headers, path, raw query params and the peer address to the auth function', async () => {
    authCalls.length = 0;
    expect(
      await upgradeStatus(`${stream.url}?token=good&tag=a&tag=b+c&enc=%41&empty=`, { authorization: 'Bearer t' }),
    ).toBe(101);
    const input = authCalls[0];
    expect(input?.path).toBe('/');
    expect(input?.query_params).toEqual({ token: ['good'], tag: ['a', 'b+c'], enc: ['%41'], empty: [''] });
    expect(input?.headers.authorization).toBe('Bearer t');
    expect(input?.headers.upgrade).toBe('websocket');
    expect(input?.addr).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  it('refuses a denied connection with 401 before the upgrade', async () => {
    expect(await upgradeStatus(`${stream.url}?token=bad`)).toBe(401);
    expect(await upgradeStatus(stream.url)).toBe(401);
  });

  it('refuses with 500 when the auth function throws or does not exist, without leaking the error', async () => {
    const answer = await upgradeResponse(`${stream.url}?token=boom`);
    expect(answer.status).toBe(500);
    expect(answer.body).not.toMatch(/secret|database|at /);
    expect(await upgradeStatus(`${unregistered.url}?token=good`)).toBe(500);
  });

  it('refuses with 503 when the auth function does not answer within auth_timeout_ms', async () => {
    const started = Date.now();
    expect(await upgradeStatus(`${stream.url}?token=hang`)).toBe(503);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(AUTH_TIMEOUT_MS - 50);
    expect(took).toBeLessThan(AUTH_TIMEOUT_MS + 3000);
  });

  it('hands the returned context to the join handlers (null when the answer has none)', async () => {
    const client = await rawClient(`${stream.url}?token=good`);
    client.join('s1', 'todo', 'g');
    await waitFor(() => client.frames.length === 1, 5000, 'sync');
    expect(joins.at(-1)?.context).toEqual({ userId: 'u_1', roles: ['viewer'] });
    client.ws.close();
    const anon = await rawClient(`${stream.url}?token=anon`);
    anon.join('s2', 'todo', 'g');
    await waitFor(() => anon.frames.length === 1, 5000, 'sync');
    expect(joins.at(-1)?.context).toBeNull();
    anon.ws.close();
  });
});
