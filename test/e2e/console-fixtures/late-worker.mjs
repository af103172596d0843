// A worker that joins while the console is open (the Workers page shows it arrive and leave).
// Env: SVC_URL. Prints "ready" once registered.
import { registerWorker } from '@svc/sdk';

const worker = registerWorker(process.env.SVC_URL, { workerName: 'late-worker' });
worker.registerFunction('late::hello', async () => ({ hello: true }));
await worker.ready();
console.log('ready');
