/* global Buffer */
// A worker on our SDK (@svc/sdk) streaming HTTP bodies through the request/response channel refs of its payload.
// Env: SVC_URL. Routes under /ours-st/. Prints "ready" once registered, "sse stopped <reason>" when an SSE client left,
// "refs <json>" with the channel refs of a /ours-st/refs request, "late writer stopped <code> <error>" when the
// handler of /ours-st/late, opening its response only after its client left, found it gone.
import { createHash } from 'node:crypto';
import { openChannel, registerWorker } from '@svc/sdk';

const worker = registerWorker(process.env.SVC_URL, { workerName: 'svc-stream-worker' });
const route = (id, api_path, http_method, handler) => {
  worker.registerFunction(id, handler);
  worker.registerTrigger({ type: 'http', function_id: id, config: { api_path, http_method } });
};

route('ours-st::upload', '/ours-st/upload', 'POST', async (req) => {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of openChannel(worker, req.request_body).stream) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { status_code: 200, body: { bytes, sha256: hash.digest('hex') } };
});

route('ours-st::download', '/ours-st/download', 'GET', async (req) => {
  const out = openChannel(worker, req.response);
  out.sendMessage(JSON.stringify({ type: 'set_status', status_code: 206 }));
  out.sendMessage(JSON.stringify({ type: 'set_headers', headers: { 'content-type': 'application/octet-stream' } }));
  const size = Number(req.query_params.size);
  for (let at = 0; at < size; at += 100_000) {
    if (!out.stream.write(Buffer.alloc(Math.min(100_000, size - at), at % 251))) {
      await new Promise((r) => out.stream.once('drain', r));
    }
  }
  out.stream.end();
});

route('ours-st::sse', '/ours-st/sse', 'GET', async (req, ctx) => {
  const out = openChannel(worker, req.response);
  out.sendMessage(JSON.stringify({ type: 'set_headers', headers: { 'content-type': 'text/event-stream' } }));
  let stopped;
  out.closed.then((code) => (stopped ??= `channel ${code}`));
  ctx.signal.addEventListener('abort', () => (stopped ??= 'signal'));
  for (let i = 0; !stopped; i++) {
    out.stream.write(`data: ${i}\n\n`);
    await new Promise((r) => setTimeout(r, 50));
  }
  console.log(`sse stopped ${stopped}`);
});

// Opens the response only once its client left (the signal fires when svc-http cancels the call) and svc-http has
// retired the request's channels, then streams with no error listener, as an SSE handler does: the write must fail
// and the worker live on.
route('ours-st::late', '/ours-st/late', 'GET', async (req, ctx) => {
  await new Promise((r) => {
    ctx.signal.addEventListener('abort', r);
    setTimeout(r, 5_000);
  });
  await new Promise((r) => setTimeout(r, 500));
  const out = openChannel(worker, req.response);
  let failed = 'none';
  while (!out.stream.destroyed) {
    out.stream.write('data: late\n\n', (err) => (failed = err ? err.message : failed));
    await new Promise((r) => setTimeout(r, 20));
  }
  const code = await out.closed;
  await new Promise((r) => setTimeout(r, 20));
  console.log(`late writer stopped ${code} ${failed}`);
});

// Returns a value and prints its channel refs ("refs <json>"), so a test can try them once the request is over.
route('ours-st::refs', '/ours-st/refs', 'GET', async (req) => {
  console.log(`refs ${JSON.stringify({ request_body: req.request_body, response: req.response })}`);
  return { status_code: 200, body: { ok: true } };
});

await worker.ready();
await new Promise((r) => setTimeout(r, 200));
console.log('ready');
