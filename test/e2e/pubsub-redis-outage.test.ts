/**
 * PubSub on Redis through an outage: while Redis is down a publish fails at once with `publish_failed` (never held
 * back and delivered later); once it is back the engine re-subscribes by itself and delivery resumes. Runs its own
 * redis-server on a free port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, expect, it } from 'vitest';
import { registerWorker, type SvcClient } from '@svc/sdk';
import { freePort, spawnWorker, startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';

let redis: ChildProcess | undefined;
let engine: EngineProcess | undefined;
let sub: Child | undefined;
let client: SvcClient | undefined;
afterAll(async () => {
  await client?.shutdown();
  await sub?.stop();
  await engine?.stop();
  redis?.kill('SIGKILL');
});

function startRedis(port: number): ChildProcess {
  const proc = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  proc.on('error', () => undefined);
  return proc;
}

const deliveries = (child: Child) => [...child.logs().matchAll(/^recv \S+ (.*)$/gm)].map((m) => JSON.parse(m[1]!));

it('publish fails fast while Redis is down and delivery resumes when it is back', async () => {
  const port = await freePort();
  redis = startRedis(port);
  const kvserver_url = `redis://127.0.0.1:${port}`;
  await new Promise((r) => setTimeout(r, 200)); // redis-server accepts connections almost at once
  engine = await startEngine({
    modules: [
      {
        class: 'modules::pubsub::PubSubModule',
        config: { adapter: { class: 'modules::pubsub::KvserverAdapter', config: { kvserver_url } } },
      },
    ],
  });
  const topic = `outage.${randomUUID().slice(0, 8)}`;
  sub = spawnWorker('test/e2e/pubsub-subscriber.mjs', { SVC_URL: engine.url, NAME: 'sub', TOPICS: topic });
  await sub.waitForOutput('ready');
  client = registerWorker(engine.url, { workerName: 'publisher', logger: pino({ level: 'silent' }) });
  await client.ready();
  const publish = (seq: number) => client!.trigger({ function_id: 'publish', payload: { topic, data: { seq } } });
  await waitFor(async () => {
    await publish(0);
    return deliveries(sub!).length > 0;
  }, 10000);

  redis.kill('SIGKILL');
  await new Promise((r) => setTimeout(r, 300));
  const t0 = Date.now();
  const error = await publish(1).catch((e: unknown) => e as Error);
  expect(error).toBeInstanceOf(Error);
  expect((error as { code?: string }).code).toBe('publish_failed');
  expect(String((error as Error).message)).toMatch(/publish to '.*' failed: Redis/);
  expect(Date.now() - t0).toBeLessThan(2000);

  redis = startRedis(port);
  await waitFor(
    async () => {
      await publish(2).catch(() => undefined);
      return deliveries(sub!).some((d: { seq?: number }) => d.seq === 2);
    },
    10000,
    'delivery after Redis is back',
  );
  expect(deliveries(sub).some((d: { seq?: number }) => d.seq === 1)).toBe(false); // the failed publish never arrives
}, 40_000);
