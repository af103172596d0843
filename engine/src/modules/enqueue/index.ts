/**
 * The `enqueue` action (docs/protocol.md, "3.5 Enqueue") as a built-in engine module: a call made with
 * `TriggerAction.Enqueue({queue})` is handed to whichever worker provides `engine::queue::enqueue` (svc-queue),
 * and the caller gets the engine-owned `messageReceiptId` once the provider accepted the job. Without a provider,
 * or when it refuses, the caller gets `enqueue_error`. `startEngine` always loads it.
 *
 * Batched hand-over: when the provider also registers `engine::queue::enqueue_batch` (svc-queue does) and no
 * lifecycle observer wants each invocation (tracing, metrics: they keep one hand-over per call), the enqueues of
 * one event-loop turn go to the provider as one call `{jobs: [<the payload above>, …]}`, answered with
 * `{results: [{messageReceiptId} | {error: {code, message}}, …]}` in the same order; each caller gets its own
 * outcome. A turn's jobs are grouped by the caller's deadline (each group's call has that deadline) and split into
 * calls of at most `MAX_BATCH_JOBS` jobs or `MAX_BATCH_TEXT` characters of JSON; each job is encoded once, here.
 */
import type { CallRequest, InvocationOutcome } from '../../core/index.js';
import { newUuid } from '@svc/sdk/core';
import { sendEncoded } from '../../transport/shared-payload.js';
import type { ActionHandler, EngineInternals, EngineModule, ModuleContext } from '../module.js';

export const ENQUEUE_MODULE = 'modules::enqueue::EnqueueActionModule';
/** The function `TriggerAction.Enqueue` goes through. */
export const ENQUEUE_FUNCTION_ID = 'engine::queue::enqueue';
/** The provider's batched form of `engine::queue::enqueue` (svc-queue's; see the module comment). */
export const ENQUEUE_BATCH_FUNCTION_ID = 'engine::queue::enqueue_batch';
/** Most jobs in one batched hand-over. */
export const MAX_BATCH_JOBS = 512;
/**
 * Most characters of JSON in one batched hand-over (a job larger than this goes alone): well under a worker's
 * inbound frame limit and NATS's default message size, for a hand-over that crosses to another engine.
 */
export const MAX_BATCH_TEXT = 256 * 1024;
/** `TriggerAction.Enqueue` failed: no `engine::queue::enqueue` provider, or the provider refused. */
export const ENQUEUE_ERROR = 'enqueue_error';

export const NO_QUEUE_PROVIDER_MESSAGE =
  'No queue provider is installed. `TriggerAction.Enqueue` routes through the `engine::queue::enqueue` provider, ' +
  'which the svc-queue worker registers. Add the queue module (svc-queue) to the config. ' +
  '(underlying: Function engine::queue::enqueue not found)';

/** The payload of one hand-over (docs/protocol.md, "3.5 Enqueue"). */
interface EnqueuePayload {
  queue: string;
  function_id: string;
  data: unknown;
  messageReceiptId: string;
  traceparent: string | null;
  baggage: string | null;
}

/** The action handler: the provider's batched form when it has one and nobody observes calls, else one call each. */
export function enqueueHandler(engine: EngineInternals): ActionHandler {
  const batches = new Batches(engine);
  return (call, settle) => {
    if (!engine.hasFunction(ENQUEUE_FUNCTION_ID)) {
      settle({ error: { code: ENQUEUE_ERROR, message: NO_QUEUE_PROVIDER_MESSAGE } });
      return;
    }
    const action = call.action as { type: 'enqueue'; queue: string };
    const payload: EnqueuePayload = {
      queue: action.queue,
      function_id: call.functionId,
      data: call.data,
      messageReceiptId: newUuid(),
      traceparent: call.traceparent ?? null,
      baggage: call.baggage ?? null,
    };
    if (engine.hasFunction(ENQUEUE_BATCH_FUNCTION_ID) && !engine.invocationsObserved()) {
      const text = encode(payload);
      if (text !== undefined) {
        batches.add(call.timeoutMs, { payload, text, settle });
        return;
      }
    }
    // the caller's deadline (its `timeout_ms`, else the engine's) bounds the hand-over; the caller's trace context
    // goes with it, so the hand-over is a span of the caller's trace
    const options = { timeoutMs: call.timeoutMs, traceparent: call.traceparent, baggage: call.baggage };
    engine.call(ENQUEUE_FUNCTION_ID, payload, options, (outcome) => settle(handedOver(payload, outcome)));
  };
}

function handedOver(payload: EnqueuePayload, outcome: InvocationOutcome): InvocationOutcome {
  if (outcome.error) return { error: { code: ENQUEUE_ERROR, message: outcome.error.message } };
  return { result: { messageReceiptId: payload.messageReceiptId } };
}

/** The payload as JSON; undefined for a value JSON cannot carry (an in-process caller's), sent the usual way. */
function encode(payload: EnqueuePayload): string | undefined {
  try {
    return JSON.stringify(payload);
  } catch {
    return undefined;
  }
}

interface Pending {
  payload: EnqueuePayload;
  text: string;
  settle: (outcome: InvocationOutcome) => void;
}

/** The jobs of the current turn, by deadline, handed over together at its end. */
class Batches {
  /**
   * A new Map per turn rather than `clear()`: a cleared Map's replaced hash table still points at the turn's jobs,
   * and once the table is in the old generation that keeps them through young collections (sdk/src/in-flight.ts).
   */
  private byDeadline = new Map<number, Pending[]>();
  private scheduled = false;

  constructor(private readonly engine: EngineInternals) {}

  add(timeoutMs: CallRequest['timeoutMs'], job: Pending): void {
    let jobs = this.byDeadline.get(timeoutMs);
    if (jobs === undefined) this.byDeadline.set(timeoutMs, (jobs = []));
    jobs.push(job);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(flushBatches, this);
    }
  }

  /** @internal */
  flush(): void {
    this.scheduled = false;
    const groups = [...this.byDeadline];
    this.byDeadline = new Map();
    for (const [timeoutMs, jobs] of groups) {
      let from = 0;
      let size = 0;
      for (let i = 0; i < jobs.length; i++) {
        const length = jobs[i]!.text.length + 1;
        if (i > from && (i - from >= MAX_BATCH_JOBS || size + length > MAX_BATCH_TEXT)) {
          this.send(timeoutMs, jobs.slice(from, i));
          from = i;
          size = 0;
        }
        size += length;
      }
      this.send(timeoutMs, jobs.slice(from));
    }
  }

  private send(timeoutMs: number, jobs: Pending[]): void {
    const data = { jobs: jobs.map((j) => j.payload) };
    let text = '{"jobs":[';
    for (let i = 0; i < jobs.length; i++) text += i === 0 ? jobs[i]!.text : `,${jobs[i]!.text}`;
    text += ']}';
    sendEncoded(data, text, () =>
      this.engine.call(ENQUEUE_BATCH_FUNCTION_ID, data, { timeoutMs }, (outcome) => settleEach(jobs, outcome)),
    );
  }
}

function flushBatches(batches: Batches): void {
  batches.flush();
}

/** Each caller's outcome from the provider's answer (`results[i]` is the i-th job's). */
function settleEach(jobs: Pending[], outcome: InvocationOutcome): void {
  if (outcome.error) {
    for (const job of jobs) job.settle({ error: { code: ENQUEUE_ERROR, message: outcome.error.message } });
    return;
  }
  const results = (outcome.result as { results?: unknown } | null | undefined)?.results;
  for (let i = 0; i < jobs.length; i++) {
    const job = jobs[i]!;
    const r = Array.isArray(results) ? (results[i] as { error?: { message?: unknown } } | null | undefined) : undefined;
    if (r !== null && typeof r === 'object' && r.error === undefined) {
      job.settle({ result: { messageReceiptId: job.payload.messageReceiptId } });
    } else {
      const why = r?.error?.message;
      const message = typeof why === 'string' ? why : 'the queue provider gave no outcome for this job';
      job.settle({ error: { code: ENQUEUE_ERROR, message } });
    }
  }
}

export function createEnqueueModule(): EngineModule {
  let uninstall: (() => void) | undefined;
  return {
    name: ENQUEUE_MODULE,
    start(ctx: ModuleContext): Promise<void> {
      uninstall = ctx.hooks.setActionHandler('enqueue', enqueueHandler(ctx.engine));
      return Promise.resolve();
    },
    close(): Promise<void> {
      uninstall?.();
      uninstall = undefined;
      return Promise.resolve();
    },
  };
}
