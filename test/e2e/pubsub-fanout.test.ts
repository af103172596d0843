/**
 * PubSub end to end, real processes: `publish {topic, data}` fans out to every `subscribe` binding of the topic,
 * in several worker processes (our SDK and iii-sdk@0.22.1), each binding once per message with `data` itself as
 * its payload; no topic → `topic_not_set`. Across two engines through Redis (KvserverAdapter): a message published
 * on either engine reaches the subscribers of both, once each.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import WebSocket from 'ws';
import { afterAll, describe, expect, it } from 'vitest';
import { InvocationError, registerWorker, type SvcClient } from '@svc/sdk';
import { spawnWorker, startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';

const REDIS_URL = process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const SUBSCRIBER = 'test/e2e/pubsub-subscriber.mjs';
const cleanup: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

let localEngine: EngineProcess | undefined;
const pubsub = (adapter: object) => ({ class: 'modules::pubsub::PubSubModule', config: { adapter } });

async function engineWith(adapter: object): Promise<EngineProcess> {
  const engine = await startEngine({ modules: [pubsub(adapter)] });
  cleanup.push(() => engine.stop());
  return engine;
}

async function subscriber(url: string, name: string, topics: string[], sdk: 'svc' | 'iii' = 'svc'): Promise<Child> {
  const child = spawnWorker(SUBSCRIBER, { SVC_URL: url, NAME: name, TOPICS: topics.join(','), SDK: sdk });
  cleanup.push(() => child.stop());
  await child.waitForOutput('ready');
  return child;
}

async function publisher(url: string): Promise<SvcClient> {
  const client = registerWorker(url, { workerName: 'publisher', logger: pino({ level: 'silent' }) });
  cleanup.push(() => client.shutdown());
  await client.ready();
  return client;
}

/** Payloads received per function id, from a subscriber's "recv <fn> <json>" lines. */
function received(child: Child): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  for (const line of child.logs().split('\n')) {
    const match = /^recv (\S+) (.*)$/.exec(line);
    if (!match) continue;
    out.set(match[1]!, [...(out.get(match[1]!) ?? []), JSON.parse(match[2]!)]);
  }
  return out;
}

const count = (children: Child[]) => children.reduce((n, c) => n + [...received(c).values()].flat().length, 0);

/** Waits until the registrations reached the module (a probe message is delivered to every binding). */
async function warmUp(client: SvcClient, children: Child[], topics: string[], bindings: number): Promise<void> {
  await waitFor(
    async () => {
      for (const topic of topics) await client.trigger({ function_id: 'publish', payload: { topic, data: 'probe' } });
      await new Promise((r) => setTimeout(r, 100));
      const probes = children.flatMap((c) => [...received(c).entries()]).filter(([, v]) => v.includes('probe'));
      return probes.length >= bindings;
    },
    10000,
    'subscribers bound',
  );
}

const withoutProbes = (m: Map<string, unknown[]>) =>
  new Map([...m].map(([k, v]) => [k, v.filter((p) => p !== 'probe')] as const));

describe('pubsub', () => {
  it('fans out to every subscriber binding in several workers, once each, with data as the payload', async () => {
    const engine = (localEngine = await engineWith({ class: 'modules::pubsub::LocalAdapter' }));
    const topic = `orders.${randomUUID().slice(0, 8)}`;
    const other = `${topic}.other`;
    const a = await subscriber(engine.url, 'sub-a', [topic, topic, other]);
    const b = await subscriber(engine.url, 'sub-b', [topic], 'iii');
    const client = await publisher(engine.url);
    await warmUp(client, [a, b], [topic, other], 4);

    const before = count([a, b]);
    const messages = [{ order: 1, items: ['x'] }, 'text', 42, [1, 2], { order: 5, nested: { deep: true } }];
    for (const data of messages) {
      expect(await client.trigger({ function_id: 'publish', payload: { topic, data } })).toBeUndefined();
    }
    await waitFor(() => count([a, b]) >= before + messages.length * 3, 5000, 'all deliveries');
    await new Promise((r) => setTimeout(r, 200)); // nothing more arrives
    const gotA = withoutProbes(received(a));
    const gotB = withoutProbes(received(b));
    // Each binding got each message once, in order, exactly as published.
    expect(gotA.get('sub-a::on-0')).toEqual(messages);
    expect(gotA.get('sub-a::on-1')).toEqual(messages);
    expect(gotB.get('sub-b::on-0')).toEqual(messages);
    expect(gotA.get('sub-a::on-2')).toEqual([]); // another topic
  });

  it('runs a binding with condition_function_id only when its condition returns a truthy value', async () => {
    const topic = `cond.${randomUUID().slice(0, 8)}`;
    const worker = await publisher(localEngine!.url);
    const plain: unknown[] = [];
    const guarded: unknown[] = [];
    worker.registerFunction('cond-e2e::keep', (data: { keep?: boolean }) => data.keep === true);
    worker.registerFunction('cond-e2e::plain', (data: unknown) => void plain.push(data));
    worker.registerFunction('cond-e2e::guarded', (data: unknown) => void guarded.push(data));
    worker.registerTrigger({ type: 'subscribe', function_id: 'cond-e2e::plain', config: { topic } });
    worker.registerTrigger({
      type: 'subscribe',
      function_id: 'cond-e2e::guarded',
      config: { topic, condition_function_id: 'cond-e2e::keep' },
    });
    await waitFor(
      async () => {
        await worker.trigger({ function_id: 'publish', payload: { topic, data: { keep: true, probe: true } } });
        await new Promise((r) => setTimeout(r, 50));
        return plain.length > 0 && guarded.length > 0;
      },
      5000,
      'bindings active',
    );
    plain.length = 0;
    guarded.length = 0;
    const messages = [{ keep: true, n: 1 }, { keep: false, n: 2 }, { n: 3 }, { keep: true, n: 4 }];
    for (const data of messages) await worker.trigger({ function_id: 'publish', payload: { topic, data } });
    await waitFor(() => plain.length >= 4 && guarded.length >= 2, 5000, 'deliveries');
    await new Promise((r) => setTimeout(r, 100));
    expect(plain).toEqual(messages);
    expect(guarded).toEqual([messages[0], messages[3]]);
  });

  it('refuses a publish without a topic with topic_not_set', async () => {
    const client = await publisher(localEngine!.url);
    for (const payload of [{ data: 1 }, { topic: '', data: 1 }, { topic: 5 }]) {
      const error = await client.trigger({ function_id: 'publish', payload }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvocationError);
      expect((error as InvocationError).code).toBe('topic_not_set');
      expect((error as Error).message).toMatch(/publish needs a topic/);
    }
  });

  it('refuses data it cannot write as JSON with serialization_error, and delivers the next message', async () => {
    const topic = `deep.${randomUUID().slice(0, 8)}`;
    const worker = await publisher(localEngine!.url);
    const got: unknown[] = [];
    worker.registerFunction('deep-e2e::on', (data: unknown) => void got.push(data));
    worker.registerTrigger({ type: 'subscribe', function_id: 'deep-e2e::on', config: { topic } });
    await waitFor(
      async () => {
        await worker.trigger({ function_id: 'publish', payload: { topic, data: 'probe' } });
        await new Promise((r) => setTimeout(r, 50));
        return got.length > 0;
      },
      5000,
      'binding active',
    );
    got.length = 0;
    // 10,000 levels: JSON.parse reads them, JSON.stringify overflows its stack writing them again (no SDK can send
    // this, so the frame is written by hand)
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const ws = new WebSocket(localEngine!.url);
    await new Promise((r) => ws.once('open', r));
    const answer = new Promise<{ error?: { code: string; message: string } }>((resolve) =>
      ws.on('message', (raw) => {
        const msg = JSON.parse((raw as Buffer).toString()) as {
          type: string;
          error?: { code: string; message: string };
        };
        if (msg.type === 'invocationresult') resolve(msg);
      }),
    );
    const id = randomUUID();
    ws.send(
      `{"type":"invokefunction","invocation_id":"${id}","function_id":"publish","data":{"topic":"${topic}","data":${deep}}}`,
    );
    const { error } = await answer;
    ws.close();
    expect(error?.code).toBe('serialization_error');
    expect(error?.message).toMatch(
      new RegExp(`^publish to '${topic.replace('.', '\\.')}': data cannot be written as JSON`),
    );
    await worker.trigger({ function_id: 'publish', payload: { topic, data: { next: 1 } } });
    await waitFor(() => got.length > 0, 5000, 'the next message');
    expect(got).toEqual([{ next: 1 }]);
  });

  it('refuses a subscribe trigger without a topic with a triggerregistrationresult error', async () => {
    for (const config of [{}, { topic: '' }, { topic: 7 }]) {
      const error = await registrationError(localEngine!.url, config);
      expect(error.code).toBe('trigger_registration_failed');
      expect(error.message).toMatch(/subscribe trigger needs config\.topic/);
    }
  });

  it('crosses two engines through Redis: each subscriber gets each message once', async () => {
    const adapter = {
      class: 'modules::pubsub::KvserverAdapter',
      config: { kvserver_url: REDIS_URL, channel_prefix: `test:${randomUUID()}:` },
    };
    const [one, two] = await Promise.all([engineWith(adapter), engineWith(adapter)]);
    const topic = `events.${randomUUID().slice(0, 8)}`;
    const onOne = await subscriber(one.url, 'on-one', [topic]);
    const onTwo = await subscriber(two.url, 'on-two', [topic, topic]);
    const pubOne = await publisher(one.url);
    const pubTwo = await publisher(two.url);
    await warmUp(pubOne, [onOne, onTwo], [topic], 3);

    const before = count([onOne, onTwo]);
    for (let i = 0; i < 5; i++) {
      await pubOne.trigger({ function_id: 'publish', payload: { topic, data: { seq: i, from: 'one' } } });
      await pubTwo.trigger({ function_id: 'publish', payload: { topic, data: { seq: i, from: 'two' } } });
    }
    await waitFor(() => count([onOne, onTwo]) >= before + 30, 5000, 'deliveries on both engines');
    await new Promise((r) => setTimeout(r, 200));
    const expected = (from: string) => [0, 1, 2, 3, 4].map((seq) => ({ seq, from }));
    for (const [child, fn] of [
      [onOne, 'on-one::on-0'],
      [onTwo, 'on-two::on-0'],
      [onTwo, 'on-two::on-1'],
    ] as const) {
      const got = withoutProbes(received(child)).get(fn) as Array<{ from: string }>;
      expect(got.filter((g) => g.from === 'one')).toEqual(expected('one'));
      expect(got.filter((g) => g.from === 'two')).toEqual(expected('two'));
      expect(got).toHaveLength(10);
    }
  });
});

/** Registers a `subscribe` trigger over a raw socket and resolves the error of its `triggerregistrationresult`. */
function registrationError(url: string, config: unknown): Promise<{ code: string; message: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const id = randomUUID();
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`no triggerregistrationresult for ${JSON.stringify(config)}`));
    }, 5000);
    ws.on('open', () => {
      ws.send(JSON.stringify({ type: 'registerfunction', id: `pubsub-e2e::${id}` }));
      ws.send(
        JSON.stringify({
          type: 'registertrigger',
          id,
          trigger_type: 'subscribe',
          function_id: `pubsub-e2e::${id}`,
          config,
        }),
      );
    });
    ws.on('message', (raw) => {
      const msg = JSON.parse((raw as Buffer).toString()) as {
        type: string;
        id?: string;
        error?: { code: string; message: string };
      };
      if (msg.type !== 'triggerregistrationresult' || msg.id !== id || !msg.error) return;
      clearTimeout(timer);
      ws.close();
      resolve(msg.error);
    });
    ws.on('error', reject);
  });
}
