/* global clearTimeout */
// The sample worker the console browser test drives: a plain function, a failing one, an HTTP route, a cron job
// (scheduled once a year, fired with Trigger Now), an event subscriber and a queue subscriber that fails until
// `sample::heal` is called (so its messages reach the dead letters, then a redrive processes them).
// Env: SVC_URL. Prints "ready" once registered.
import { registerWorker } from '@svc/sdk';

const worker = registerWorker(process.env.SVC_URL, {
  workerName: 'sample-worker',
  reconnectionConfig: { initialDelayMs: 100, maxDelayMs: 500 },
});
const record = (key, value) => worker.trigger({ function_id: 'state::set', payload: { scope: 'sample', key, value } });
let healthy = false;

worker.registerFunction('sample::greet', async (input) => ({ greeting: `hello ${input?.name ?? 'world'}` }), {
  description: 'Greets {name}',
  request_format: { type: 'object', properties: { name: { type: 'string', example: 'grace' } } },
});
worker.registerFunction('sample::slow', async (_input, ctx) => {
  await new Promise((resolve) => {
    const timer = setTimeout(resolve, 5000);
    ctx?.signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()));
  });
  return { slept: true };
});
worker.registerFunction('sample::fail', async () => {
  throw new Error('sample failure: out of stock');
});
worker.registerFunction('sample::echo', async (req) => ({
  status_code: 201,
  headers: { 'x-sample': 'yes' },
  body: { id: req.path_params?.id ?? null, query: req.query_params ?? {}, method: req.method, body: req.body ?? null },
}));
worker.registerTrigger({
  type: 'http',
  function_id: 'sample::echo',
  config: { api_path: 'sample/echo/:id', http_method: 'POST' },
});
worker.registerFunction('sample::tick', async (input) => {
  await record('cron-fired', { job_id: input?.job_id ?? null });
  return { ticked: true };
});
worker.registerTrigger({ type: 'cron', function_id: 'sample::tick', config: { expression: '0 0 0 1 1 *' } });
worker.registerFunction('sample::on_created', async (data) => {
  await record('event-received', data);
});
worker.registerTrigger({ type: 'subscribe', function_id: 'sample::on_created', config: { topic: 'sample.created' } });
worker.registerFunction('sample::process', async (data) => {
  if (!healthy) throw new Error('sample::process is not healthy yet');
  await record(`processed-${data?.job}`, data);
  return { processed: true };
});
worker.registerTrigger({
  type: 'durable:subscriber',
  function_id: 'sample::process',
  config: { topic: 'sample-jobs' },
});
worker.registerFunction('sample::heal', async () => {
  healthy = true;
  return { healthy };
});

await worker.ready();
console.log('ready');
