// The peers of the invoke benchmark (the systems a user would pick instead), one role per process:
//   json-relay      a ws relay /call ⇄ /exec that parses every frame and re-serialises it (the least a broker does)
//   mol-executor    Moleculer 0.14 broker over NATS with a `bench.echo` action answering its params
//   mol-caller      Moleculer 0.14 broker over NATS calling `bench.echo` with `broker.call`
//   iii-executor    iii-sdk worker registering bench::echo
//   iii-caller      iii-sdk caller of bench::echo
// `url` is the NATS server for the Moleculer roles and the engine (or relay) for the others.
import { WebSocketServer } from 'ws';
import { serve } from './drive.mjs';

const FUNCTION_ID = 'bench::echo';

function jsonRelay() {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  let caller;
  let executor;
  wss.on('connection', (ws, req) => {
    if (req.url === '/exec') executor = ws;
    else caller = ws;
    ws.on('message', (data) => {
      const peer = ws === caller ? executor : caller;
      peer?.send(JSON.stringify(JSON.parse(data.toString())));
    });
  });
  wss.on('listening', () => process.send({ ready: true, port: wss.address().port }));
}

async function moleculerBroker(url, nodeID) {
  const { ServiceBroker } = (await import('moleculer')).default;
  const broker = new ServiceBroker({
    nodeID: `${nodeID}-${process.pid}`,
    namespace: `bench-${process.env.BENCH_MOLECULER_NS ?? 'invoke'}`,
    transporter: { type: 'NATS', options: { url } },
    logger: false,
    requestTimeout: 0,
  });
  return broker;
}

async function molExecutor(url) {
  const broker = await moleculerBroker(url, 'executor');
  broker.createService({ name: 'bench', actions: { echo: (ctx) => ctx.params } });
  await broker.start();
  process.send({ ready: true });
}

async function molCaller(url) {
  const broker = await moleculerBroker(url, 'caller');
  await broker.start();
  await broker.waitForServices(['bench']);
  serve((data) => broker.call('bench.echo', data));
}

async function iiiClient(url, name) {
  const { registerWorker } = await import('iii-sdk');
  return registerWorker(url, { otel: { enabled: false }, workerName: name });
}

async function iiiExecutor(url) {
  const client = await iiiClient(url, 'bench-iii-executor');
  client.registerFunction(FUNCTION_ID, async (data) => data);
  setTimeout(() => process.send({ ready: true }), 300);
}

async function iiiCaller(url) {
  const client = await iiiClient(url, 'bench-iii-caller');
  // the first call waits for the connection: start measuring on a connected client
  await client.trigger({ function_id: FUNCTION_ID, payload: {} });
  serve((data) => client.trigger({ function_id: FUNCTION_ID, payload: data }));
}

export const peerRoles = {
  'json-relay': jsonRelay,
  'mol-executor': molExecutor,
  'mol-caller': molCaller,
  'iii-executor': iiiExecutor,
  'iii-caller': iiiCaller,
};
