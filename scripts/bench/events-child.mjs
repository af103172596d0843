/**
 * Child processes of the events benchmark (scripts/bench/events.mjs), one role per process, talking to the parent
 * over IPC:
 *   engine                 a real engine with the pubsub module (LocalAdapter) on a free port → {url}
 *   svc-subscriber URL N   one worker with N subscribe bindings on topic "bench"
 *   relay                  the floor: a plain ws server that relays each publish frame to every subscriber socket
 *   ws-subscriber URL N    the floor's subscriber: one socket that receives the N copies
 *   nats-subscriber URL N  the peer's subscriber: one nats.js connection with N subscriptions on subject "bench"
 * Subscribers measure latency = receive time - the publisher's timestamp in the message (same host, same clock),
 * and report {count, latencies, last (the time of the last receipt)} when the parent asks ("report"), then reset
 * count and latencies.
 */
import pino from 'pino';
import { WebSocket, WebSocketServer } from 'ws';
import { monotonicMs as now } from './lib/clock.mjs';

const [role, url, n] = process.argv.slice(2);
const silent = pino({ level: 'silent' });

let latencies = [];
let count = 0;
/** When the last message arrived (the end of a throughput run is the last delivery, not the parent's poll). */
let last = 0;
function record(data) {
  count++;
  last = now();
  if (data && typeof data.t === 'number') latencies.push(last - data.t);
}

process.on('SIGTERM', () => process.exit(0));
process.on('message', (msg) => {
  if (msg === 'report') {
    process.send({ count, latencies, last });
    latencies = [];
    count = 0;
  }
});

if (role === 'engine') {
  const { startEngine } = await import('../../engine/dist/engine.js');
  const { createPubSubModule } = await import('../../engine/dist/modules/pubsub/index.js');
  const engine = await startEngine({
    port: 0,
    host: '127.0.0.1',
    modules: [await createPubSubModule()],
    logger: silent,
  });
  process.send({ url: engine.url });
} else if (role === 'svc-subscriber') {
  const { registerWorker } = await import('@svc/sdk');
  const client = registerWorker(url, { workerName: 'bench-subscriber', logger: silent });
  for (let i = 0; i < Number(n); i++) {
    client.registerFunction(`bench::on-${i}`, (data) => {
      record(data);
      return null;
    });
    client.registerTrigger({ type: 'subscribe', function_id: `bench::on-${i}`, config: { topic: 'bench' } });
  }
  await client.ready();
  process.send({ ready: true });
} else if (role === 'relay') {
  const subscribers = new Set();
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  server.on('connection', (ws, req) => {
    ws.on('error', () => undefined);
    if (req.url?.startsWith('/sub')) {
      subscribers.add(ws);
      ws.on('close', () => subscribers.delete(ws));
      return;
    }
    // Publisher: parse the frame as the engine would, fan out, then answer the call.
    ws.on('message', (raw) => {
      const msg = JSON.parse(String(raw));
      const copies = Number(msg.copies);
      for (const sub of subscribers) {
        for (let i = 0; i < copies; i++) sub.send(JSON.stringify({ type: 'invokefunction', data: msg.data }));
      }
      ws.send(JSON.stringify({ type: 'invocationresult', invocation_id: msg.invocation_id }));
    });
  });
  server.on('listening', () => process.send({ url: `ws://127.0.0.1:${server.address().port}` }));
} else if (role === 'ws-subscriber') {
  const ws = new WebSocket(`${url}/sub`);
  ws.on('message', (raw) => record(JSON.parse(String(raw)).data));
  ws.on('open', () => process.send({ ready: true }));
} else if (role === 'nats-subscriber') {
  const { connect, JSONCodec } = await import('nats');
  const codec = JSONCodec();
  const nc = await connect({ servers: url });
  for (let i = 0; i < Number(n); i++)
    nc.subscribe('bench', { callback: (_err, msg) => record(codec.decode(msg.data)) });
  await nc.flush();
  process.send({ ready: true });
}
