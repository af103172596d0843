/**
 * The telemetry hand-off holds batches while svc-otel's `otel::ingest` is not registered (start-up, a restart),
 * sends them in order once it is, and past its byte bound drops the oldest, counting each drop.
 */
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { SvcClient } from '@svc/sdk';
import { TelemetryHandoff } from '../src/modules/observability/handoff.js';

/** A client that records the void calls it is asked to make (the hand-off's only use of it). */
function recordingClient(): { client: SvcClient; sent: { prefix: string; body: string }[] } {
  const sent: { prefix: string; body: string }[] = [];
  const client = {
    trigger: (request: { payload: { prefix: string; body: string } }) => {
      sent.push(request.payload);
      return Promise.resolve(undefined);
    },
  } as unknown as SvcClient;
  return { client, sent };
}

const frame = (prefix: string, body: string): Buffer => Buffer.from(`${prefix}${body}`);
/** The engine's span batches are handed over as the JSON text of their payload. */
const spanPayload = (body: string): string => JSON.stringify({ prefix: 'SVCS', body });

describe('telemetry hand-off', () => {
  it('holds batches until svc-otel is registered, then sends them first and in order', () => {
    const { client, sent } = recordingClient();
    let ready = false;
    const handoff = new TelemetryHandoff(client, pino({ level: 'silent' }), () => ready);
    handoff.accept(frame('LOGS', '{"a":1}'));
    handoff.localPayload('SVCS', spanPayload('spans-1'));
    expect(sent).toEqual([]);
    expect(handoff.waitingCount).toBe(2);
    handoff.functionsChanged(); // another function registered: still not svc-otel's
    expect(sent).toEqual([]);
    ready = true;
    handoff.accept(frame('OTLP', '{"b":2}'));
    expect(sent.map((s) => s.body)).toEqual(['{"a":1}', 'spans-1', '{"b":2}']);
    expect(handoff.waitingCount).toBe(0);
    expect(handoff.forwarded).toBe(3);
  });

  it('drops the oldest past its bound and counts them', () => {
    const { client, sent } = recordingClient();
    let ready = false;
    const bound = 2 * spanPayload('aaaa').length; // room for two of the four batches
    const handoff = new TelemetryHandoff(client, pino({ level: 'silent' }), () => ready, 1024, bound);
    for (const body of ['aaaa', 'bbbb', 'cccc', 'dddd']) handoff.localPayload('SVCS', spanPayload(body));
    expect(handoff.waitingCount).toBe(2);
    expect(handoff.droppedCount).toBe(2);
    ready = true;
    handoff.functionsChanged();
    expect(sent.map((s) => s.body)).toEqual(['cccc', 'dddd']);
    expect(sent.map((s) => s.prefix)).toEqual(['SVCS', 'SVCS']);
  });

  it('hands a batch over as an object that reads and serialises as the payload its text encodes', () => {
    const { client, sent } = recordingClient();
    const handoff = new TelemetryHandoff(client, pino({ level: 'silent' }), () => true);
    const text = spanPayload('line 1\nline "2"');
    handoff.localPayload('SVCS', text);
    const [payload] = sent;
    expect(Object.keys(payload!)).toEqual(['prefix', 'body']);
    expect(payload).toEqual({ prefix: 'SVCS', body: 'line 1\nline "2"' });
    expect(JSON.stringify(payload)).toBe(text);
    expect({ ...payload }).toEqual({ prefix: 'SVCS', body: 'line 1\nline "2"' });
  });

  it('gives every batch payload the same hidden class, with fast properties', () => {
    // A payload with getters made for it alone got a hidden class of its own (and, after a few, a property
    // dictionary): each held its 70 KB batch text through its own closures, and the texts outlived
    // young-generation collections and were promoted.
    setFlagsFromString('--allow-natives-syntax');
    const check = runInNewContext('(a, b) => %HaveSameMap(a, b) && %HasFastProperties(b)') as (
      a: unknown,
      b: unknown,
    ) => boolean;
    const { client, sent } = recordingClient();
    const handoff = new TelemetryHandoff(client, pino({ level: 'silent' }), () => true);
    for (let i = 0; i < 50; i++) handoff.localPayload('SVCS', spanPayload(`batch ${i}`));
    expect(sent.map((p) => p.body)).toEqual(Array.from({ length: 50 }, (_, i) => `batch ${i}`));
    expect(sent.filter((p) => !check(sent[0], p))).toEqual([]);
  });
});
