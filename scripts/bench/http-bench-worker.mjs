// The function behind the HTTP benchmark route: GET /bench/hello → the same small JSON the floor server answers.
import { registerWorker } from '@svc/sdk';

const worker = registerWorker(process.env.SVC_URL, { workerName: 'http-bench-worker' });
worker.registerFunction('bench::hello', () => ({ body: { hello: 'world', n: 1 } }));
worker.registerTrigger({
  type: 'http',
  function_id: 'bench::hello',
  config: { api_path: '/bench/hello', http_method: 'GET' },
});
await worker.ready();
console.log('ready');
process.on('SIGTERM', async () => {
  await worker.shutdown();
  process.exit(0);
});
