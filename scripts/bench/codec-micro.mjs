// What a frame's encoding costs in isolation: JSON (what the engine and the SDK speak) against msgpack (msgpackr,
// plain maps and with records), for the invoke frame of the invoke benchmark (100 B payload). Prints ns per
// operation; the measurement behind keeping JSON on the wire (docs/performance.md, "msgpack, measured"). Then the
// engine's own invoke frames (an event delivery: its payload once shared by a fan-out, once not) written by
// `JSON.stringify` and by the engine's field-by-field writer (`encodeInvoke`; needs `npm run build`); last, an
// invocation id's life made by `crypto.randomUUID` and by the SDK's `newUuid`.
//   node scripts/bench/codec-micro.mjs [iterations (1000000)]
// Helper (exports no `run`).
import { Buffer } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { newUuid } from '@svc/sdk/core';
import { Packr } from 'msgpackr';
import { encodeInvoke, release, share } from '../../engine/dist/transport/shared-payload.js';

const N = Number(process.argv[2] ?? 1_000_000);
const frame = {
  type: 'invokefunction',
  invocation_id: '3b241101-e2bb-4255-8caf-4136c566a962',
  function_id: 'bench::echo',
  data: { s: 'x'.repeat(92) },
  timeout_ms: 30000,
};
const plain = new Packr({ useRecords: false });
const records = new Packr({ structures: [] });
const json = Buffer.from(JSON.stringify(frame));
const packed = plain.pack(frame);
const recordPacked = records.pack(frame);

function bench(name, fn) {
  for (let i = 0; i < N / 10; i++) fn();
  const t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) fn();
  const ns = Number(process.hrtime.bigint() - t) / N;
  console.log(`${name.padEnd(44)} ${ns.toFixed(0).padStart(5)} ns`);
}

console.log(
  `invoke frame: JSON ${json.length} B, msgpack ${packed.length} B, msgpack records ${recordPacked.length} B`,
);
bench('encode: JSON.stringify + UTF-8 bytes', () => Buffer.from(JSON.stringify(frame)));
bench('encode: msgpack', () => plain.pack(frame));
bench('encode: msgpack records', () => records.pack(frame));
bench('decode: UTF-8 text + JSON.parse', () => JSON.parse(json.toString()));
bench('decode: msgpack', () => plain.unpack(packed));
bench('decode: msgpack records', () => records.unpack(recordPacked));

// the frame the engine's router builds for an event delivery (the events benchmark's payload)
const delivery = (data) => ({
  type: 'invokefunction',
  invocation_id: '3b241101-e2bb-4255-8caf-4136c566a962',
  function_id: 'bench::on-3',
  data,
  metadata: undefined,
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  baggage: undefined,
});
const payload = { t: 1795947657105, pad: 'x'.repeat(64) };
const event = delivery(payload);
if (encodeInvoke(event) !== JSON.stringify(event)) throw new Error('encodeInvoke differs from JSON.stringify');
bench('engine delivery: JSON.stringify + UTF-8 bytes', () => Buffer.from(JSON.stringify(event)));
bench('engine delivery: encodeInvoke + UTF-8 bytes', () => Buffer.from(encodeInvoke(event)));
share(payload);
bench('engine delivery, shared payload: encodeInvoke + UTF-8', () => Buffer.from(encodeInvoke(event)));
release(payload);

// An invocation id's life in the engine and the SDK: made, kept in a Map of the calls in flight, written into a
// frame, then found by the copy the answer carries (a slice of the answer's text) and deleted. `crypto.randomUUID`
// returns a rope of twenty pieces that is flattened when first hashed or written; `newUuid` one flat string.
const inFlight = new Map();
const frameBytes = Buffer.alloc(1 << 16);
let frameAt = 0;
const idLife = (make) => () => {
  const id = make();
  inFlight.set(id, frameAt);
  const text = `{"type":"invokefunction","invocation_id":"${id}","function_id":"bench::on-3","data":{"t":1}}`;
  if (frameAt > 60_000) frameAt = 0;
  frameAt += frameBytes.write(text, frameAt);
  const answer = `{"type":"invocationresult","invocation_id":"${id}","function_id":"bench::on-3"}`;
  const found = answer.slice(44, 80);
  if (inFlight.get(found) === undefined) throw new Error('id not found');
  inFlight.delete(found);
};
bench('invocation id: crypto.randomUUID, kept, written', idLife(randomUUID));
bench('invocation id: newUuid, kept, written', idLife(newUuid));
