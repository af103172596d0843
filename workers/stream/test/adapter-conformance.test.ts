/**
 * One suite for every stream adapter: storage semantics, the change feed (one event per change, in order) and
 * close(). Redis runs against the real server (scripts/services.sh) with a unique key prefix.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BridgeStreamAdapter } from '../src/adapters/bridge.js';
import { FileStreamAdapter } from '../src/adapters/file.js';
import { MemoryStreamAdapter } from '../src/adapters/memory.js';
import { RedisStreamAdapter } from '../src/adapters/redis.js';
import type { StreamAdapter } from '../src/adapters/types.js';
import type { StreamWrapperMessage } from '../src/messages.js';
import { applyUpdateOps, type JsonValue, type UpdateOp } from '@svc/sdk';
import { spawnWorker, startEngine, waitForFunction, type Child, type EngineProcess } from '../../../test/harness.js';
import { namespaced } from './support/namespaced-adapter.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-stream-adapters-'));
const REDIS_URL = process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const runId = `svc-test-${process.pid}-${Date.now()}:`;
let fileCount = 0;

/** The bridged engine: a real engine with svc-stream (in memory) that the Bridge adapter forwards to. */
let remote: { engine: EngineProcess; stream: Child } | undefined;

const factories: Record<string, () => StreamAdapter> = {
  memory: () => new MemoryStreamAdapter(),
  file: () => new FileStreamAdapter({ dir: join(dir, `s${fileCount++}`), saveIntervalMs: 50 }),
  redis: () => new RedisStreamAdapter({ url: REDIS_URL, keyPrefix: `${runId}${fileCount++}:` }),
  bridge: () =>
    namespaced(
      new BridgeStreamAdapter({ url: remote?.engine.url ?? 'ws://127.0.0.1:1', logger: pino({ level: 'silent' }) }),
      `b${fileCount++}.`,
    ),
};

/** An update as svc-stream's store builds it: the function, with the ops it applies attached. */
function opsUpdate(ops: UpdateOp[]) {
  return Object.assign((cur: unknown) => applyUpdateOps(cur as JsonValue | undefined, ops), { ops });
}

beforeAll(async () => {
  const engine = await startEngine({ readyTimeoutMs: 60_000 });
  const stream = spawnWorker('workers/stream/dist/main.js', {
    SVC_URL: engine.url,
    SVC_MODULE_CONFIG: JSON.stringify({
      port: 0,
      adapter: { class: 'modules::stream::adapters::KvStore', config: { store_method: 'in_memory' } },
    }),
  });
  remote = { engine, stream };
  await waitForFunction(engine.url, 'stream::list_all', 60_000);
}, 150_000);

afterAll(async () => {
  await remote?.stream.stop();
  await remote?.engine.stop();
  rmSync(dir, { recursive: true, force: true });
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${runId}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

function collect(adapter: StreamAdapter): StreamWrapperMessage[] {
  const seen: StreamWrapperMessage[] = [];
  adapter.onMessage((m) => seen.push(m));
  return seen;
}

async function until(check: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

for (const [name, make] of Object.entries(factories)) {
  describe(`stream adapter: ${name}`, () => {
    const open: StreamAdapter[] = [];
    const start = async () => {
      const adapter = make();
      open.push(adapter);
      await adapter.start();
      return adapter;
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((a) => a.close()));
    });

    it('stores, reads, lists and deletes items, returning old values', async () => {
      const a = await start();
      expect(await a.get('todo', 'inbox', 'x')).toBeUndefined();
      const first = await a.set('todo', 'inbox', 'a', { id: 'a', n: 1 });
      expect(first).toMatchObject({ old_value: null, new_value: { id: 'a', n: 1 } });
      const second = await a.set('todo', 'inbox', 'a', { id: 'a', n: 2 });
      expect(second).toMatchObject({ old_value: { id: 'a', n: 1 }, new_value: { id: 'a', n: 2 } });
      await a.set('todo', 'inbox', 'b', { id: 'b' });
      await a.set('todo', 'done', 'c', { id: 'c' });
      await a.set('notes', 'g', 'd', 'plain string');
      expect(await a.get('todo', 'inbox', 'a')).toEqual({ id: 'a', n: 2 });
      const items = (await a.list('todo', 'inbox')) as Array<{ id: string }>;
      expect(items.map((i) => i.id).sort()).toEqual(['a', 'b']);
      expect(await a.listGroups('todo')).toEqual(['done', 'inbox']);
      expect(await a.listAll()).toEqual([
        { id: 'notes', groups: ['g'] },
        { id: 'todo', groups: ['done', 'inbox'] },
      ]);
      const removed = await a.delete('todo', 'inbox', 'a');
      expect(removed.old_value).toEqual({ id: 'a', n: 2 });
      expect((await a.delete('todo', 'inbox', 'a')).message).toBeUndefined();
      expect(await a.get('todo', 'inbox', 'a')).toBeUndefined();
      await a.delete('todo', 'done', 'c');
      expect(await a.listGroups('todo')).toEqual(['inbox']);
    });

    it('hands out copies, never aliases of stored values', async () => {
      const a = await start();
      const value = { id: 'a', tags: ['x'] };
      await a.set('s', 'g', 'a', value);
      value.tags.push('mutated');
      const read = (await a.get('s', 'g', 'a')) as { tags: string[] };
      read.tags.push('also mutated');
      expect(await a.get('s', 'g', 'a')).toEqual({ id: 'a', tags: ['x'] });
    });

    it('emits create, update, delete and custom events once each, in order', async () => {
      const a = await start();
      const seen = collect(a);
      await a.set('s', 'g', 'i', { id: 'i', v: 1 });
      await a.update('s', 'g', 'i', opsUpdate([{ type: 'increment', path: 'v', by: 2 }]));
      await a.delete('s', 'g', 'i');
      await a.delete('s', 'g', 'i'); // missing: no event
      await a.publish({
        type: 'stream',
        timestamp: Date.now(),
        streamName: 's',
        groupId: 'g',
        id: null,
        event: { type: 'event', event: { type: 'typing', data: { who: 'al' } } },
      });
      await until(() => seen.length >= 4);
      await new Promise((r) => setTimeout(r, 50));
      expect(seen.map((m) => m.event.type)).toEqual(['create', 'update', 'delete', 'event']);
      expect(seen[1]?.event).toEqual({ type: 'update', data: { id: 'i', v: 3 } });
      expect(seen[2]?.event).toEqual({ type: 'delete', data: { id: 'i', v: 3 } });
      expect(seen[3]).toMatchObject({ streamName: 's', groupId: 'g', id: null });
      for (const m of seen) expect(typeof m.timestamp).toBe('number');
    });

    it('update that applies no op neither writes nor emits', async () => {
      const a = await start();
      const seen = collect(a);
      const bad: UpdateOp[] = [{ type: 'remove', path: '__proto__' }];
      const missing = await a.update('s', 'g', 'none', opsUpdate(bad));
      expect(missing).toMatchObject({ old_value: null, new_value: null, message: undefined });
      expect(missing.errors).toHaveLength(1);
      expect(await a.get('s', 'g', 'none')).toBeUndefined();
      await a.set('s', 'g', 'i', { n: 1 });
      const kept = await a.update('s', 'g', 'i', opsUpdate(bad));
      expect(kept).toMatchObject({ old_value: { n: 1 }, new_value: { n: 1 }, message: undefined });
      await until(() => seen.length >= 1);
      await new Promise((r) => setTimeout(r, 50));
      expect(seen.map((m) => m.event.type)).toEqual(['create']);
    });

    it('update applies ops atomically under concurrency (no lost increments)', async () => {
      const a = await start();
      const ops: UpdateOp[] = [{ type: 'increment', path: 'n', by: 1 }];
      await Promise.all(Array.from({ length: 40 }, () => a.update('s', 'g', 'counter', opsUpdate(ops))));
      expect(await a.get('s', 'g', 'counter')).toEqual({ n: 40 });
    });

    it('matches a plain model over random sequences of set, delete and update (fast-check, seeded)', async () => {
      const key = fc.constantFrom('a', 'b', 'c');
      const group = fc.constantFrom('g1', 'g2');
      const command = fc.oneof(
        fc.record({ op: fc.constant('set' as const), group, key, value: fc.integer({ min: 0, max: 9 }) }),
        fc.record({ op: fc.constant('delete' as const), group, key }),
        fc.record({ op: fc.constant('inc' as const), group, key, by: fc.integer({ min: 1, max: 3 }) }),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(command, { maxLength: 25 }), async (commands) => {
          const a = await start();
          const seen = collect(a);
          const model = new Map<string, { v: number }>();
          let events = 0;
          for (const c of commands) {
            const id = `${c.group}/${c.key}`;
            if (c.op === 'set') {
              await a.set('s', c.group, c.key, { v: c.value });
              model.set(id, { v: c.value });
              events++;
            } else if (c.op === 'delete') {
              await a.delete('s', c.group, c.key);
              if (model.delete(id)) events++;
            } else {
              await a.update('s', c.group, c.key, opsUpdate([{ type: 'increment', path: 'v', by: c.by }]));
              model.set(id, { v: (model.get(id)?.v ?? 0) + c.by });
              events++;
            }
          }
          for (const g of ['g1', 'g2']) {
            const expected = [...model.entries()].filter(([id]) => id.startsWith(`${g}/`)).map(([, v]) => v.v);
            const actual = ((await a.list('s', g)) as Array<{ v: number }>).map((v) => v.v);
            expect(actual.sort()).toEqual(expected.sort());
          }
          await until(() => seen.length >= events);
          expect(seen).toHaveLength(events);
          await a.close();
        }),
        { numRuns: name === 'memory' ? 60 : 15, seed: 4242 },
      );
    });

    it('close() is idempotent, stops the feed and refuses later calls', async () => {
      const a = await start();
      const seen = collect(a);
      await a.close();
      await a.close();
      await expect(a.set('s', 'g', 'i', 1)).rejects.toMatchObject({ code: 'stream_adapter_closed' });
      expect(seen).toEqual([]);
    });
  });
}

describe('stream adapter: file persistence', () => {
  it('keeps items across a close and reopen, and flushes on close', async () => {
    const storeDir = join(dir, 'persist');
    const first = new FileStreamAdapter({ dir: storeDir, saveIntervalMs: 60_000 });
    await first.start();
    await first.set('todo', 'inbox', 'a', { id: 'a' });
    await first.set('todo', 'inbox', 'b', { id: 'b' });
    await first.delete('todo', 'inbox', 'b');
    await first.close();
    const second = new FileStreamAdapter({ dir: storeDir, saveIntervalMs: 0 });
    await second.start();
    expect(await second.list('todo', 'inbox')).toEqual([{ id: 'a' }]);
    const intruder = new FileStreamAdapter({ dir: storeDir, saveIntervalMs: 0 });
    await expect(intruder.start()).rejects.toMatchObject({ code: 'store_open_failed' });
    await second.close();
  });
});

describe('stream adapter: file, process killed', () => {
  it('with save_interval_ms 0, every answered write survives a kill -9', async () => {
    const storeDir = join(dir, 'killed');
    const adapterModule = new URL('../dist/adapters/file.js', import.meta.url).href; // the built adapter
    const script = `
      const { FileStreamAdapter } = await import(${JSON.stringify(adapterModule)});
      const a = new FileStreamAdapter({ dir: ${JSON.stringify(storeDir)}, saveIntervalMs: 0 });
      await a.start();
      for (let i = 0; i < 50; i++) await a.set('s', 'g', 'i' + i, { id: 'i' + i });
      await a.delete('s', 'g', 'i0');
      process.stdout.write('written\\n');
      process.kill(process.pid, 'SIGKILL');`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const signal = await new Promise((r) => child.on('exit', (_code, sig) => r(sig)));
    expect(signal).toBe('SIGKILL');
    expect(out).toContain('written');
    const reopened = new FileStreamAdapter({ dir: storeDir, saveIntervalMs: 0 });
    await reopened.start();
    expect(await reopened.list('s', 'g')).toHaveLength(49);
    expect(await reopened.get('s', 'g', 'i0')).toBeUndefined();
    await reopened.close();
  });
});

describe('stream adapter: redis across processes', () => {
  it('delivers a change made through one adapter to every adapter on the same prefix, once', async () => {
    const keyPrefix = `${runId}shared:`;
    const one = new RedisStreamAdapter({ url: REDIS_URL, keyPrefix });
    const two = new RedisStreamAdapter({ url: REDIS_URL, keyPrefix });
    await Promise.all([one.start(), two.start()]);
    try {
      const seenOne = collect(one);
      const seenTwo = collect(two);
      await one.set('s', 'g', 'i', { id: 'i' });
      await two.set('s', 'g', 'i', { id: 'i', v: 2 });
      await until(() => seenOne.length >= 2 && seenTwo.length >= 2);
      await new Promise((r) => setTimeout(r, 50));
      expect(seenOne.map((m) => m.event.type)).toEqual(['create', 'update']);
      expect(seenTwo).toEqual(seenOne);
      expect(await two.get('s', 'g', 'i')).toEqual({ id: 'i', v: 2 });
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it('resumes delivery after Redis drops its connections', async () => {
    const keyPrefix = `${runId}flap:`;
    const connectionName = `svc-stream-flap-${process.pid}`;
    const a = new RedisStreamAdapter({ url: REDIS_URL, keyPrefix, connectionName });
    await a.start();
    const admin = new Redis(REDIS_URL);
    try {
      const seen = collect(a);
      await a.set('s', 'g', 'before', 1);
      await until(() => seen.length === 1);
      // Only this adapter's connections: the Redis is shared with other tests.
      const list = (await admin.client('LIST')) as string;
      const ids = list
        .split('\n')
        .filter((line) => line.includes(` name=${connectionName} `))
        .map((line) => /^id=(\d+)/.exec(line)?.[1])
        .filter((id): id is string => id !== undefined);
      expect(ids.length).toBeGreaterThanOrEqual(2);
      for (const id of ids) await admin.client('KILL', 'ID', id);
      // The subscriber comes back on its own; a write after that is delivered again.
      await until(() => {
        void a.set('s', 'g', 'after', seen.length).catch(() => undefined);
        return seen.some((m) => m.id === 'after');
      }, 5000);
    } finally {
      await admin.quit();
      await a.close();
    }
  });
});
