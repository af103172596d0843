/**
 * One suite, every store (memory, file, Redis): the same calls must give the same answers and the same change feed.
 * Includes model-based checks: random sequences and interleavings of calls against a reference model (seed: env
 * SVC_FC_SEED, default 22).
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StateAdapter, StateChange } from '../src/adapters/types.js';
import { commandsArb, keyArb, Model, opArb, opsMutation, valueArb, type Real } from './support/model.js';
import { fileStore, memoryStore, redisAnswers, redisStore, waitFor, type StoreKind } from './support/stores.js';

const SEED = Number(process.env.SVC_FC_SEED ?? 22);
// Per property; two properties make 400 model runs per store by default (SVC_FC_RUNS=1000 for a longer hunt).
const RUNS = Number(process.env.SVC_FC_RUNS ?? 200);
const redisUp = await redisAnswers();

describe.each<StoreKind>([memoryStore, fileStore, redisStore])('$name store', (kind) => {
  // Redis is an external service; CI starts it (scripts/services.sh). Without it these cases cannot run.
  const skip = kind === redisStore && !redisUp;
  let made: ReturnType<StoreKind['make']>;
  let store: StateAdapter;
  let seen: StateChange[];

  beforeEach(async () => {
    if (skip) return;
    made = kind.make();
    store = made.adapter;
    seen = [];
    store.onChange((change) => void seen.push(change));
    await store.start();
  });

  afterEach(async () => {
    if (skip) return;
    await store.close();
    await made.cleanup();
  });

  it.skipIf(skip)('get, set, delete with exact old values', async () => {
    expect(await store.get('s', 'k')).toBeUndefined();
    // old_json: the replaced value's stored text (null when there was none), which state::set answers with
    expect(await store.set('s', 'k', { a: 1 })).toEqual({ old_value: undefined, new_value: { a: 1 }, old_json: null });
    expect(await store.set('s', 'k', [1, 'two', null])).toEqual({
      old_value: { a: 1 },
      new_value: [1, 'two', null],
      old_json: '{"a":1}',
    });
    expect(await store.get('s', 'k')).toEqual([1, 'two', null]);
    expect(await store.delete('s', 'k')).toEqual([1, 'two', null]);
    expect(await store.delete('s', 'k')).toBeUndefined();
    expect(await store.get('s', 'k')).toBeUndefined();
  });

  it.skipIf(skip)('getJson answers the stored JSON text of what get answers, nothing for a missing key', async () => {
    expect(typeof store.getJson).toBe('function');
    expect(await store.getJson!('s', 'k')).toBeUndefined();
    const value = { list: [1, 'two', null], s: 'é\n"q"', n: -1.5e-7 };
    await store.set('s', 'k', value);
    await store.set('t', 'k', 'other scope');
    const [text, parsed] = await Promise.all([store.getJson!('s', 'k'), store.get('s', 'k')]);
    expect(JSON.parse(text!)).toEqual(value);
    expect(parsed).toEqual(value);
    expect(await store.getJson!('t', 'k')).toBe('"other scope"');
    await store.delete('s', 'k');
    expect(await store.getJson!('s', 'k')).toBeUndefined();
  });

  it.skipIf(skip)('stores a copy: mutating the caller object changes nothing', async () => {
    const value = { list: [1] };
    await store.set('s', 'k', value);
    value.list.push(2);
    const read = (await store.get('s', 'k')) as { list: number[] };
    read.list.push(3);
    expect(await store.get('s', 'k')).toEqual({ list: [1] });
  });

  it.skipIf(skip)('treats prototype names as plain scopes and keys', async () => {
    await store.set('__proto__', 'constructor', { polluted: true });
    expect(await store.get('__proto__', 'constructor')).toEqual({ polluted: true });
    expect(await store.get('other', 'constructor')).toBeUndefined();
    expect(await store.listGroups()).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.skipIf(skip)('list is ordered by key; list_groups is sorted and drops empty scopes', async () => {
    await store.set('b', 'z', 3);
    await store.set('b', 'a', 1);
    await store.set('a', 'k', 'v');
    await store.set('b', 'm', 2);
    expect(await store.list('b')).toEqual([
      { key: 'a', value: 1 },
      { key: 'm', value: 2 },
      { key: 'z', value: 3 },
    ]);
    expect(await store.list('none')).toEqual([]);
    expect(await store.listGroups()).toEqual(['a', 'b']);
    await store.delete('a', 'k');
    expect(await store.listGroups()).toEqual(['b']);
  });

  it.skipIf(skip)('update is atomic under concurrency', async () => {
    const increments = Array.from({ length: 40 }, () =>
      store.update('s', 'counter', opsMutation([{ type: 'increment', path: 'n', by: 1 }])),
    );
    await Promise.all(increments);
    expect(await store.get('s', 'counter')).toEqual({ n: 40 });
  });

  it.skipIf(skip)('an update that declines or throws stores nothing and emits nothing', async () => {
    await store.set('s', 'k', 1);
    expect(await store.update('s', 'k', () => undefined)).toEqual({ old_value: 1, new_value: 1, written: false });
    await expect(
      store.update('s', 'k', () => {
        throw new Error('bad op');
      }),
    ).rejects.toThrow('bad op');
    expect(await store.get('s', 'k')).toBe(1);
    await store.set('s', 'done', true);
    await waitFor(() => seen.length === 2);
    expect(seen.map((c) => c.key)).toEqual(['k', 'done']);
  });

  it.skipIf(skip)('the change feed has every committed change once, in commit order, with exact values', async () => {
    await store.set('s', 'k', 1);
    await store.set('s', 'k', 2);
    await store.update('s', 'k', opsMutation([{ type: 'increment', path: '', by: 5 }]));
    await store.delete('s', 'missing');
    await store.delete('s', 'k');
    await waitFor(() => seen.length >= 4);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toEqual([
      { event_type: 'state:created', scope: 's', key: 'k', old_value: null, new_value: 1 },
      { event_type: 'state:updated', scope: 's', key: 'k', old_value: 1, new_value: 2 },
      { event_type: 'state:updated', scope: 's', key: 'k', old_value: 2, new_value: 7 },
      { event_type: 'state:deleted', scope: 's', key: 'k', old_value: 7, new_value: null },
    ]);
  });

  it.skipIf(skip)('writes made in one turn (one script call on Redis) reach the feed in commit order', async () => {
    await Promise.all(Array.from({ length: 50 }, (_, i) => store.set('s', 'k', i)));
    await waitFor(() => seen.length >= 50);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toHaveLength(50);
    // each change replaced exactly what the one before it wrote, and the last is what is stored
    seen.forEach((change, i) => expect(change.old_value).toEqual(i === 0 ? null : seen[i - 1]!.new_value));
    expect(await store.get('s', 'k')).toEqual(seen[49]!.new_value);
    expect(new Set(seen.map((c) => c.new_value)).size).toBe(50);
  });

  // Not for file: its reads answer from what is committed, and a write commits with its fsync, so a read made in
  // the same turn as a write may come before it (still a serial history: the model-based cases check that).
  it.skipIf(skip || kind === fileStore)('calls made in one turn (batched to Redis) act in call order', async () => {
    const calls = [
      store.set('a', 'k', 1),
      store.set('b', 'k', 2),
      store.set('a', 'j', 'x'),
      store.get('a', 'k'),
      store.get('b', 'k'),
      store.get('a', 'j'),
      store.set('a', 'k', 3),
      store.get('a', 'k'),
      store.get('a', 'j'),
      store.delete('b', 'k'),
      store.get('b', 'k'),
      store.set('b', 'k', 4),
      store.get('b', 'k'),
    ];
    expect(await Promise.all(calls)).toEqual([
      { old_value: undefined, new_value: 1, old_json: null },
      { old_value: undefined, new_value: 2, old_json: null },
      { old_value: undefined, new_value: 'x', old_json: null },
      1,
      2,
      'x',
      { old_value: 1, new_value: 3, old_json: '1' },
      3,
      'x',
      2,
      undefined,
      { old_value: undefined, new_value: 4, old_json: null },
      4,
    ]);
    await waitFor(() => seen.length >= 6);
    expect(seen.map((c) => [c.event_type, c.scope, c.key, c.old_value, c.new_value])).toEqual([
      ['state:created', 'a', 'k', null, 1],
      ['state:created', 'b', 'k', null, 2],
      ['state:created', 'a', 'j', null, 'x'],
      ['state:updated', 'a', 'k', 1, 3],
      ['state:deleted', 'b', 'k', 2, null],
      ['state:created', 'b', 'k', null, 4],
    ]);
    // b was emptied by the delete and written again after it: still listed
    expect(await store.listGroups()).toEqual(['a', 'b']);
  });

  it.skipIf(skip)('every scope written in one turn is listed, whichever write in the turn first used it', async () => {
    await Promise.all([
      store.set('s1', 'k', 1),
      store.set('s1', 'j', 2),
      store.set('s2', 'k', 3),
      store.set('s1', 'i', 4),
      store.set('s3', 'k', 5),
      store.set('s2', 'j', 6),
    ]);
    expect(await store.listGroups()).toEqual(['s1', 's2', 's3']);
    expect(await store.list('s2')).toEqual([
      { key: 'j', value: 6 },
      { key: 'k', value: 3 },
    ]);
  });

  it.skipIf(skip)('close is idempotent; later calls fail with adapter_closed', async () => {
    await store.close();
    await store.close();
    await expect(store.get('s', 'k')).rejects.toMatchObject({ code: 'adapter_closed' });
    await expect(store.set('s', 'k', 1)).rejects.toMatchObject({ code: 'adapter_closed' });
  });

  // Not for memory: by design it keeps nothing once closed.
  it.skipIf(skip || kind === memoryStore)('data survives close and reopen', async () => {
    await store.set('s', 'k', { kept: true });
    await store.close();
    store = made.reopen();
    await store.start();
    expect(await store.get('s', 'k')).toEqual({ kept: true });
  });

  it.skipIf(skip)(
    'model-based: random command sequences agree with the model and its change feed',
    async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(commandsArb, async (cmds) => {
          const prefix = `r${run++}-`;
          const model = new Model();
          const real: Real = { adapter: prefixed(store, prefix), seen: [] };
          const start = seen.length;
          await fc.asyncModelRun(() => ({ model, real }), cmds);
          await waitFor(() => mine(seen.slice(start), prefix).length >= model.changes.length, 5000);
          expect(mine(seen.slice(start), prefix)).toEqual(model.changes);
        }),
        { seed: SEED, numRuns: RUNS },
      );
    },
    120_000,
  );

  it.skipIf(skip)(
    'model-based: concurrent reads and writes in random start orders are serializable',
    async () => {
      let run = 0;
      const writeArb = fc.oneof(
        fc.tuple(fc.constant('set' as const), keyArb, valueArb),
        fc.tuple(fc.constant('delete' as const), keyArb, fc.constant(null)),
        fc.tuple(fc.constant('update' as const), keyArb, fc.array(opArb, { minLength: 1, maxLength: 3 })),
        fc.tuple(fc.constant('get' as const), keyArb, fc.constant(null)),
      );
      await fc.assert(
        fc.asyncProperty(fc.scheduler(), fc.array(writeArb, { minLength: 1, maxLength: 12 }), async (s, writes) => {
          const scope = `c${run++}`;
          const start = seen.length;
          const results = writes.map(([op, key, arg]) =>
            s.schedule(Promise.resolve(), `${op} ${key}`).then(async () => {
              if (op === 'set') return { written: true, ...(await store.set(scope, key, arg)) };
              if (op === 'delete') return { written: (await store.delete(scope, key)) !== undefined };
              if (op === 'get') return { written: false, read: { key, value: await store.get(scope, key) } };
              return store.update(scope, key, opsMutation(arg));
            }),
          );
          await s.waitAll();
          const outcomes = await Promise.all(results);
          const expected = outcomes.filter((o) => o.written).length;
          await waitFor(() => seen.slice(start).filter((c) => c.scope === scope).length >= expected, 5000);
          const feed = seen.slice(start).filter((c) => c.scope === scope);
          expect(feed).toHaveLength(expected);
          // The feed is a serial history: each change starts from the value the previous change of its key left.
          const replay = new Model();
          for (const change of feed) {
            expect(change.old_value).toEqual(replay.get(scope, change.key) ?? null);
            replay.write(scope, change.key, change.event_type === 'state:deleted' ? undefined : change.new_value);
          }
          expect(await store.list(scope)).toEqual(replay.list(scope));
          // A read returns a state its key really had: missing, or a value some committed change left.
          for (const outcome of outcomes) {
            if (!('read' in outcome) || outcome.read === undefined) continue;
            const { key, value } = outcome.read;
            const states = feed
              .filter((c) => c.key === key && c.event_type !== 'state:deleted')
              .map((c) => c.new_value);
            if (value !== undefined) expect(states).toContainEqual(value);
          }
        }),
        { seed: SEED, numRuns: RUNS },
      );
    },
    120_000,
  );
});

/** The same store seen under a scope prefix, so runs of one property share one store without sharing data. */
function prefixed(store: StateAdapter, prefix: string): StateAdapter {
  return {
    start: () => store.start(),
    close: () => store.close(),
    onChange: () => undefined,
    get: (scope, key) => store.get(prefix + scope, key),
    set: (scope, key, value) => store.set(prefix + scope, key, value),
    delete: (scope, key) => store.delete(prefix + scope, key),
    update: (scope, key, mutate) => store.update(prefix + scope, key, mutate),
    list: (scope) => store.list(prefix + scope),
    listGroups: async () =>
      (await store.listGroups()).filter((g) => g.startsWith(prefix)).map((g) => g.slice(prefix.length)),
  };
}

function mine(changes: StateChange[], prefix: string): StateChange[] {
  return changes.filter((c) => c.scope.startsWith(prefix)).map((c) => ({ ...c, scope: c.scope.slice(prefix.length) }));
}
