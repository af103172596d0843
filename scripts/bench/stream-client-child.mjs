// One process of the stream-client benchmark (scripts/bench/stream-client.mjs): `count` clients of the real
// `@motiadev/stream-client-node`, each a `Stream` with one group subscription, forked with an IPC channel
// (advanced serialisation). Every item carries `seq` and `sentAt` (the host's monotonic clock, ms); a client
// records one latency sample the first time its change callback shows an item with a seq it has not seen.
// Commands: `{ cmd: 'measure', from, to }` counts seqs in [from, to) only; `{ cmd: 'collect' }` answers the
// samples and, per seq, how many of this process's clients saw it; `{ cmd: 'close' }` ends the process.
import { Stream } from '@motiadev/stream-client-node';
import { monotonicMs } from './lib/clock.mjs';

const [url, countArg, streamName, groupId] = process.argv.slice(2);
const count = Number(countArg);

let from = Infinity;
let to = -Infinity;
let latencies = [];
let seen = new Map(); // seq → clients of this process that saw it
let synced = 0;
let onSynced = () => undefined;

const clients = [];
/** Opens one client; `synced` counts those that have had their first change callback (the join's sync). */
function open() {
  const stream = new Stream(url);
  const subscription = stream.subscribeGroup(streamName, groupId);
  const last = new Map(); // item id → last seq this client saw
  let first = true;
  subscription.addChangeListener((items) => {
    if (first) {
      first = false;
      synced++;
      onSynced();
    }
    const at = monotonicMs();
    for (const item of items) {
      const seq = item?.seq;
      if (typeof seq !== 'number' || last.get(item.id) === seq) continue;
      last.set(item.id, seq);
      if (seq < from || seq >= to) continue;
      latencies.push(at - item.sentAt);
      seen.set(seq, (seen.get(seq) ?? 0) + 1);
    }
  });
  clients.push(stream);
}

// 50 at a time, so the server's accept backlog never overflows (the client has no error listener of its own)
for (let i = 0; i < count; i += 50) {
  const n = Math.min(50, count - i);
  const target = synced + n;
  const done = new Promise((resolve) => (onSynced = () => synced >= target && resolve()));
  for (let k = 0; k < n; k++) open();
  await done;
}
onSynced = () => undefined;
process.send({ type: 'ready' });

process.on('message', (msg) => {
  if (msg.cmd === 'measure') {
    from = msg.from;
    to = msg.to;
    latencies = [];
    seen = new Map();
  } else if (msg.cmd === 'collect') {
    process.send({ type: 'collected', latencies: Float64Array.from(latencies), seen });
  } else if (msg.cmd === 'progress') {
    let delivered = 0;
    for (const n of seen.values()) delivered += n;
    process.send({ type: 'progress', delivered });
  } else if (msg.cmd === 'close') {
    for (const stream of clients) stream.close();
    process.exit(0);
  }
});
