/**
 * Stream names, group ids and item ids have a length limit (1024 bytes, like svc-state's scope and key), and data a
 * nesting limit (128 levels, like svc-state's values): a caller that goes over one gets `invalid_input` naming the
 * field and the limit, and nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawCall, startEngine, type EngineProcess } from '../harness.js';
import { startStream, type StreamProcess } from './stream-helpers.js';

let engine: EngineProcess;
let stream: StreamProcess;

beforeAll(async () => {
  engine = await startEngine();
  stream = await startStream(engine.url);
}, 60_000);

afterAll(async () => {
  await stream?.stop();
  await engine?.stop();
});

const long = 'n'.repeat(1025);
const wide = 'é'.repeat(513); // 1026 bytes in UTF-8, 513 characters

describe('svc-stream name limits', () => {
  it.each([
    ['stream_name', { stream_name: long, group_id: 'g', item_id: 'i' }],
    ['group_id', { stream_name: 's', group_id: long, item_id: 'i' }],
    ['item_id', { stream_name: 's', group_id: 'g', item_id: wide }],
  ])('stream::set with a %s over 1024 bytes: invalid_input naming it', async (field, key) => {
    const answer = await rawCall(engine.url, 'stream::set', { ...key, data: { v: 1 } });
    expect(answer.error?.code).toBe('invalid_input');
    expect(answer.error?.message).toContain(`${field}: ${field} is longer than 1024 bytes`);
  });

  it('stream::get and stream::list_groups check the same limits', async () => {
    const get = await rawCall(engine.url, 'stream::get', { stream_name: 's', group_id: long, item_id: 'i' });
    expect(get.error?.message).toContain('group_id is longer than 1024 bytes');
    const groups = await rawCall(engine.url, 'stream::list_groups', { stream_name: long });
    expect(groups.error?.message).toContain('stream_name is longer than 1024 bytes');
  });

  it('names at the limit are accepted, and nothing over it was stored', async () => {
    const atLimit = 'g'.repeat(1024);
    const set = await rawCall(engine.url, 'stream::set', {
      stream_name: 'lim',
      group_id: atLimit,
      item_id: 'i',
      data: { v: 1 },
    });
    expect(set.error).toBeUndefined();
    const groups = await rawCall(engine.url, 'stream::list_groups', { stream_name: 's' });
    expect(JSON.stringify(groups.result ?? null)).not.toContain(long);
  });

  const nested = (levels: number): unknown => {
    let value: unknown = 1;
    for (let i = 0; i < levels; i++) value = [value];
    return value;
  };

  it('data nested deeper than 128 levels: invalid_input, in stream::set, stream::send and an update op', async () => {
    const item = { stream_name: 'deep', group_id: 'g', item_id: 'i' };
    const set = await rawCall(engine.url, 'stream::set', { ...item, data: nested(129) });
    expect(set.error?.code).toBe('invalid_input');
    expect(set.error?.message).toBe('stream::set: data: is nested deeper than 128 levels');
    const send = await rawCall(engine.url, 'stream::send', {
      stream_name: 'deep',
      group_id: 'g',
      type: 't',
      data: nested(200),
    });
    expect(send.error?.message).toBe('stream::send: data: is nested deeper than 128 levels');
    const update = await rawCall(engine.url, 'stream::update', {
      ...item,
      ops: [{ type: 'set', path: 'a', value: nested(129) }],
    });
    expect(update.error?.message).toBe('stream::update: ops.0: value is nested deeper than 128 levels');
    expect((await rawCall(engine.url, 'stream::get', item)).result ?? null).toBeNull();
    const atLimit = await rawCall(engine.url, 'stream::set', { ...item, data: nested(128) });
    expect(atLimit.error).toBeUndefined();
    expect((await rawCall(engine.url, 'stream::get', item)).result).toEqual(nested(128));
  });
});
