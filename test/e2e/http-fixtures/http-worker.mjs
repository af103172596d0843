/* global setInterval, clearInterval, clearTimeout */
// A worker with HTTP-triggered functions, runnable on either SDK: SDK=iii (iii-sdk@0.22.1) or SDK=svc (@svc/sdk).
// Env: SVC_URL, PREFIX (function ids `<prefix>::*`, routes `/<prefix>/*`), CONFLICTS=1 to also register two
// conflicting routes. Prints "ready" once registered and "cancelled <invocation>" when a slow handler is aborted.
const sdk = process.env.SDK === 'iii' ? await import('iii-sdk') : await import('@svc/sdk');
const p = process.env.PREFIX ?? 'fx';
const worker = sdk.registerWorker(process.env.SVC_URL, {
  workerName: `http-fixture-${p}`,
  ...(process.env.SDK === 'iii' ? { otel: { enabled: false } } : {}),
  reconnectionConfig: { initialDelayMs: 100, maxDelayMs: 500 },
});

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });

// iii-sdk passes the invocation metadata as the second argument; our SDK passes a context holding it.
const metadataOf = (second) => (process.env.SDK === 'iii' ? second : second?.metadata);
worker.registerFunction(`${p}::echo`, async (req, second) => ({
  status_code: 201,
  headers: { 'x-fn': p },
  body: { got: req, metadata: metadataOf(second) ?? null },
}));
worker.registerFunction(`${p}::fail`, async () => {
  throw new Error(`boom from ${p}`);
});
// Held requests (`?hold=1`) wait until GET /<prefix>/release (or `ms`, default 60 s).
const held = new Set();
worker.registerFunction(`${p}::slow`, async (req, ctx) => {
  const signal = ctx?.signal;
  const tag = req?.query_params?.tag ? ` tag=${req.query_params.tag}` : '';
  signal?.addEventListener('abort', () => console.log(`cancelled ${ctx.invocationId}${tag}`));
  if (tag) console.log(`started${tag}`);
  const ms = Number(req?.query_params?.ms ?? 60000);
  if (req?.query_params?.hold === '1') {
    await new Promise((resolve) => {
      held.add(resolve);
      if (process.env.LOG_HOLDS === '1') console.log(`held ${held.size}`);
      setTimeout(resolve, ms);
    });
  } else await sleep(ms, signal);
  return { body: { slept: true } };
});
worker.registerFunction(`${p}::release`, async () => {
  const n = held.size;
  for (const resolve of held) resolve();
  held.clear();
  return { body: { released: n } };
});
worker.registerFunction(`${p}::no`, async () => false);
worker.registerFunction(`${p}::yes`, async () => true);
worker.registerFunction(`${p}::html`, async () => ({ headers: { 'Content-Type': 'text/html' }, body: '<b>hi</b>' }));
worker.registerFunction(`${p}::mw`, async (input) =>
  input?.request?.headers?.['x-token'] === 'ok'
    ? { action: 'continue' }
    : { action: 'respond', response: { status_code: 401, body: { phase: input?.phase, denied: true } } },
);
worker.registerFunction(`${p}::other`, async () => ({ body: 'other' }));

const http = (function_id, api_path, http_method, extra = {}, metadata) =>
  worker.registerTrigger({ type: 'http', function_id, config: { api_path, http_method, ...extra }, metadata });
http(`${p}::echo`, `/${p}/echo/:id`, 'POST', {}, { route: 'echo' });
http(`${p}::fail`, `${p}/fail`, 'GET');
http(`${p}::slow`, `/${p}/slow`, 'GET');
http(`${p}::release`, `/${p}/release`, 'POST');
http(`${p}::echo`, `/${p}/guarded`, 'GET', { condition_function_id: `${p}::no` });
http(`${p}::echo`, `/${p}/allowed`, 'GET', { condition_function_id: `${p}::yes` });
http(`${p}::html`, `/${p}/html`, 'get');
http(`${p}::echo`, `/${p}/mw/:id`, 'GET', { middleware_function_ids: [`${p}::mw`] });
http(`${p}::echo`, `/${p}/badcondition`, 'GET', { condition_function_id: `${p}::fail` });
http(`${p}::ghost`, `/${p}/ghost`, 'GET');
if (process.env.CONFLICTS === '1') {
  setTimeout(() => {
    http(`${p}::other`, `/${p}/echo/:id`, 'POST');
    http(`${p}::other`, `/${p}/echo/:name`, 'GET');
  }, 200);
}

const timer = setInterval(() => {
  if (worker.workerId === undefined) return;
  clearInterval(timer);
  setTimeout(() => console.log('ready'), 100);
}, 20);

process.on('SIGTERM', async () => {
  await worker.shutdown();
  process.exit(0);
});
