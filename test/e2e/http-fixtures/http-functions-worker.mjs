// Registers HTTP-invoked functions (no handler: the engine performs the call), on either SDK (SDK=iii or svc).
// Env: SVC_URL, FUNCTIONS = JSON array of { id, invocation }, TRIGGERS (below). Prints "ready" once registered.
/* global setInterval, clearInterval */
const sdk = process.env.SDK === 'iii' ? await import('iii-sdk') : await import('@svc/sdk');
const worker = sdk.registerWorker(process.env.SVC_URL, {
  workerName: 'http-functions-fixture',
  ...(process.env.SDK === 'iii' ? { otel: { enabled: false } } : {}),
});
for (const { id, invocation } of JSON.parse(process.env.FUNCTIONS ?? '[]')) worker.registerFunction(id, invocation);
// TRIGGERS = JSON array of { type, function_id, config } (e.g. an http route bound to an HTTP-invoked function).
for (const trigger of JSON.parse(process.env.TRIGGERS ?? '[]')) worker.registerTrigger(trigger);

const timer = setInterval(() => {
  if (worker.workerId === undefined) return;
  clearInterval(timer);
  setTimeout(() => console.log('ready'), 150);
}, 20);
process.on('SIGTERM', async () => {
  await worker.shutdown();
  process.exit(0);
});
