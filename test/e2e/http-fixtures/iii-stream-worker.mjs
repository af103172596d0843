/* global Buffer */
// An unmodified iii-sdk@0.22.1 worker whose HTTP handlers use iii's `http()` helper and the request/response
// channels exactly as iii applications do. Env: SVC_URL. Routes under /st/. Prints "ready" once registered,
// "sse closed after <n>" when an SSE client went away, "upload chunks <n>" per upload.
import { createHash } from 'node:crypto';
import { registerWorker } from 'iii-sdk';
import { http } from '@iii-dev/helpers/http';

const iii = registerWorker(process.env.SVC_URL, { otel: { enabled: false }, workerName: 'iii-stream-worker' });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const route = (id, api_path, http_method, handler) => {
  iii.registerFunction(id, handler);
  iii.registerTrigger({ type: 'http', function_id: id, config: { api_path, http_method } });
};

// A file upload streamed in: hashed chunk by chunk, never held whole.
route(
  'st::upload',
  '/st/upload',
  'POST',
  http(async (req, res) => {
    const hash = createHash('sha256');
    let bytes = 0;
    let chunks = 0;
    for await (const chunk of req.request_body.stream) {
      hash.update(chunk);
      bytes += chunk.length;
      chunks++;
    }
    console.log(`upload chunks ${chunks}`);
    res.status(201);
    res.headers({ 'content-type': 'application/json', 'x-upload': 'done' });
    res.stream.end(
      JSON.stringify({ bytes, chunks, sha256: hash.digest('hex'), type: req.headers['content-type'], body: req.body }),
    );
    res.close();
  }),
);

// A file download streamed out with backpressure: `size` deterministic bytes (byte i = (seed + i) & 0xff).
route(
  'st::download',
  '/st/download',
  'GET',
  http(async (req, res) => {
    const size = Number(req.query_params.size);
    const seed = Number(req.query_params.seed ?? 0);
    res.status(200);
    res.headers({ 'content-type': 'application/pdf', 'content-disposition': 'attachment; filename="big.pdf"' });
    for (let at = 0; at < size; at += 256 * 1024) {
      const n = Math.min(256 * 1024, size - at);
      const chunk = Buffer.alloc(n);
      for (let i = 0; i < n; i++) chunk[i] = (seed + at + i) & 0xff;
      if (!res.stream.write(chunk)) await new Promise((r) => res.stream.once('drain', r));
    }
    res.stream.end();
  }),
);

// Server-Sent Events: `n` events. With `session`, event i+1 is written only after the client acknowledged
// event i (POST /st/ack?session=&i=), which proves each event reached the client on its own; without it, one
// event every `gap` ms. Stops when the client goes away.
const acks = new Map();
const ackOf = (session, i) =>
  new Promise((resolve) => {
    acks.set(`${session}:${i}`, resolve);
    setTimeout(resolve, 20_000);
  });
route('st::ack', '/st/ack', 'POST', async (req) => {
  const key = `${req.query_params.session}:${req.query_params.i}`;
  acks.get(key)?.();
  acks.delete(key);
  return { status_code: 204, body: null, headers: { 'content-type': 'text/plain' } };
});
route(
  'st::sse',
  '/st/sse',
  'GET',
  http(async (req, res) => {
    const n = Number(req.query_params.n ?? 3);
    const gap = Number(req.query_params.gap ?? 100);
    const session = req.query_params.session;
    let gone = false;
    res.stream.on('close', () => (gone = true));
    res.stream.on('error', () => (gone = true));
    res.status(200);
    res.headers({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let sent = 0;
    for (; sent < n && !gone; sent++) {
      res.stream.write(`id: ${sent}\ndata: ${JSON.stringify({ i: sent })}\n\n`);
      await (session ? ackOf(session, sent) : sleep(gap));
    }
    if (gone) console.log(`sse closed after ${sent}`);
    else res.close();
  }),
);

// Forms: the urlencoded body arrives parsed in `body` and raw in `request_body`; multipart only streamed.
route('st::form', '/st/form', 'POST', async (req) => {
  const raw = (await req.request_body.readAll()).toString();
  return { status_code: 200, body: { parsed: req.body, raw } };
});
route('st::multipart', '/st/multipart', 'POST', async (req) => {
  const raw = await req.request_body.readAll();
  const boundary = /boundary="?([^";]+)"?/.exec(req.headers['content-type'] ?? '')?.[1];
  const parts = {};
  for (const part of raw.toString('latin1').split(`--${boundary}`).slice(1, -1)) {
    const [head, ...rest] = part.split('\r\n\r\n');
    const name = /name="([^"]+)"/.exec(head)?.[1];
    const value = Buffer.from(rest.join('\r\n\r\n').slice(0, -2), 'latin1');
    parts[name] = /filename=/.test(head)
      ? {
          filename: /filename="([^"]+)"/.exec(head)?.[1],
          bytes: value.length,
          sha256: createHash('sha256').update(value).digest('hex'),
        }
      : value.toString('utf8');
  }
  return { status_code: 200, body: { bodyWas: req.body, parts } };
});

// A classic handler: returns {status_code, headers, body} and ignores its channels.
route('st::classic', '/st/classic', 'POST', async (req) => ({
  status_code: 202,
  headers: { 'x-classic': '1' },
  body: { got: req.body, raw: (await req.request_body.readAll()).toString() },
}));

// A GET reads its (empty) request body, then answers with what it read.
route('st::empty-body', '/st/empty-body', 'GET', async (req) => {
  const raw = await req.request_body.readAll();
  return { status_code: 200, body: { bytes: raw.length } };
});

// Returns at once and writes its response later: the response is on the channel, opened after the return.
route(
  'st::late',
  '/st/late',
  'GET',
  http(async (_req, res) => {
    setTimeout(() => {
      res.status(203);
      res.headers({ 'content-type': 'text/plain' });
      res.stream.end('written after the handler returned');
    }, 100);
  }),
);

await sleep(300);
console.log('ready');
