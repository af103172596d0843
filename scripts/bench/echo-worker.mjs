// A worker process whose bench::echo answers its payload: the peer of calls through the engine (state, ...).
import { registerWorker } from '@svc/sdk';

const worker = registerWorker(process.env.SVC_URL, { workerName: 'bench-echo-worker' });
worker.registerFunction('bench::echo', (data) => data);
await worker.ready();
console.log('ready');
process.on('SIGTERM', async () => {
  await worker.shutdown();
  process.exit(0);
});
