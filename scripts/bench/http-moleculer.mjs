// The HTTP benchmark's peer: moleculer-web in front of Moleculer 0.14 over NATS, two processes.
//   node http-moleculer.mjs gateway   API gateway broker, GET /bench/hello → bench.hello (PORT, NATS_URL)
//   node http-moleculer.mjs service   the broker whose bench.hello answers the same JSON as the others
// Prints "listening" (gateway) or "ready" (service) once started.
import Moleculer from 'moleculer';
import ApiGateway from 'moleculer-web';

const [kind] = process.argv.slice(2);
const broker = new Moleculer.ServiceBroker({
  nodeID: `${kind}-${process.pid}`,
  namespace: 'bench-http',
  transporter: { type: 'NATS', options: { url: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' } },
  logger: false,
});

if (kind === 'gateway') {
  broker.createService({
    name: 'api',
    mixins: [ApiGateway],
    settings: {
      ip: '127.0.0.1',
      port: Number(process.env.PORT),
      logRequest: null,
      logResponse: null,
      routes: [{ path: '/', aliases: { 'GET /bench/hello': 'bench.hello' }, mappingPolicy: 'restrict' }],
    },
  });
} else {
  broker.createService({ name: 'bench', actions: { hello: () => ({ hello: 'world', n: 1 }) } });
}

await broker.start();
if (kind === 'gateway') await broker.waitForServices(['bench']);
console.log(kind === 'gateway' ? 'listening' : 'ready');
process.on('SIGTERM', () => broker.stop().then(() => process.exit(0)));
