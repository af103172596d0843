// What a frame's encoding costs in isolation: JSON (what the engine and the SDK speak) against msgpack (msgpackr,
// plain maps and with records), for the invoke frame of the invoke benchmark (100 B payload). Prints ns per
// operation; the measurement behind keeping JSON on the wire (docs/performance.md, "msgpack, measured").
//   node scripts/bench/codec-micro.mjs [iterations (1000000)]
// Helper (exports no `run`).
import { Buffer } from 'node:buffer';
import { Packr } from 'msgpackr';

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
