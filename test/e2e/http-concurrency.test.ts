/**
 * The concurrency limit through real processes: 1,100 concurrent slow requests against svc-http with the default
 * `concurrency_request_limit` (1024) admit exactly 1,024 and answer the other 76 with 503 + Retry-After; slots come
 * back when admitted requests are aborted by the client and when they complete (no leaked slot). Admitted requests are
 * held by the worker until the test releases them, so the counts do not depend on timing.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { rawCall, startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';
import { startHttpWorker, startSvcHttp, waitForRoute, type SvcHttp } from './http-fixtures/support.js';

let engine: EngineProcess;
let http: SvcHttp;
let worker: Child;
let agent: Agent;

beforeAll(async () => {
  engine = await startEngine();
  http = await startSvcHttp(engine.url, { default_timeout: 15000 });
  worker = startHttpWorker(engine.url, 'svc', 'c');
  await worker.waitForOutput('ready');
  await waitForRoute(http.base, '/c/html');
  agent = new Agent({ connections: 4096, pipelining: 1 });
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await worker?.stop();
  await http?.stop();
  await engine?.stop();
});

interface Outcome {
  status: number;
  retryAfter: string | undefined;
}

function wave(n: number) {
  const outcomes: Outcome[] = [];
  const settled = new Set<number>();
  const controllers = Array.from({ length: n }, () => new AbortController());
  const record = (i: number, outcome: Outcome): void => {
    settled.add(i);
    outcomes.push(outcome);
  };
  const done = controllers.map((c, i) =>
    request(`${http.base}/c/slow?hold=1&ms=30000`, { dispatcher: agent, signal: c.signal }).then(
      async (res) => {
        const retry = res.headers['retry-after'];
        await res.body.dump();
        record(i, { status: res.statusCode, retryAfter: typeof retry === 'string' ? retry : undefined });
      },
      () => record(i, { status: 0, retryAfter: undefined }),
    ),
  );
  /** Aborts `k` requests that have no answer yet (so they hold a slot). */
  const abortPending = (k: number): void => {
    controllers
      .filter((_, i) => !settled.has(i))
      .slice(0, k)
      .forEach((c) => c.abort());
  };
  return { outcomes, abortPending, all: Promise.all(done) };
}

const count = (outcomes: Outcome[], status: number) => outcomes.filter((o) => o.status === status).length;

/** Lets every held request of the worker answer (called through the engine: every HTTP slot may be taken). */
async function releaseHeld(): Promise<void> {
  const answer = await rawCall(engine.url, 'c::release', {});
  expect(answer.error).toBeUndefined();
}

it('admits exactly 1,024 of 1,100, and every slot comes back after aborts and completions', async () => {
  const first = wave(1100);
  await waitFor(() => count(first.outcomes, 503) === 76, 10000, '76 rejections');
  expect(first.outcomes.every((o) => o.status === 503 && o.retryAfter === '1')).toBe(true);

  // Abort 500 of the admitted requests (those still without an answer) client-side.
  first.abortPending(500);
  await waitFor(() => count(first.outcomes, 0) === 500, 5000, 'aborts to settle');
  // The server sees the closed sockets within milliseconds; leave it a generous moment under load.
  await new Promise((r) => setTimeout(r, 500));

  // 524 still hold a slot: 600 more → exactly 500 admitted.
  const second = wave(600);
  await waitFor(() => count(second.outcomes, 503) === 100, 10000, '100 rejections in the second wave');
  await releaseHeld();
  await Promise.all([first.all, second.all]);
  expect(count(first.outcomes, 200)).toBe(524);
  expect(count(second.outcomes, 200)).toBe(500);

  // Everything completed: all 1,024 slots are free again.
  const third = wave(1100);
  await waitFor(() => count(third.outcomes, 503) === 76, 10000, '76 rejections in the third wave');
  await releaseHeld();
  await third.all;
  expect(count(third.outcomes, 200)).toBe(1024);
  expect(count(third.outcomes, 503)).toBe(76);
}, 60_000);
