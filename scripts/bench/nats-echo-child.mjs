// Helper of cluster.mjs (exports no `run`): a nats.js process answering every request on `bench.nats.echo` with
// its payload, so the cluster bench can time a bare NATS request/reply beside the cross-engine call.
import { connect } from 'nats';

const nc = await connect({ servers: process.env.NATS_URL ?? '127.0.0.1:4222' });
nc.subscribe('bench.nats.echo', { callback: (_err, msg) => msg.respond(msg.data) });
await nc.flush();
process.send?.('ready');
process.on('disconnect', () => void nc.close().then(() => process.exit(0)));
