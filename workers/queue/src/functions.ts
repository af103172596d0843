/**
 * The functions svc-queue provides (listed in README.md): the enqueue hook behind `TriggerAction.Enqueue`, publish
 * to a topic, direct enqueue, and the admin functions the console's Queues page uses.
 */
import { InvocationError, type HandlerContext, type SvcClient } from '@svc/sdk';
import type { JobInput, QueueBackend } from './adapters/types.js';
import type { Consumers } from './consumers.js';
import { asObject, badInput, int, jobData, optStr, queueName, str, withQueueCode, type Obj } from './input.js';
import type { Subscriptions } from './triggers.js';
import { QueueErrorCode } from './error-codes.js';

/**
 * The names the original engine's built-in queue gives the same functions (docs/compatibility.md, "Capability
 * workers").
 */
const III_NAMES: Record<string, string[]> = {
  'queue::publish': ['iii::durable::publish'],
  'queue::redrive': ['iii::queue::redrive'],
  'queue::redrive_message': ['iii::queue::redrive_message'],
  'queue::discard_message': ['iii::queue::discard_message'],
};

export function registerQueueFunctions(
  client: SvcClient,
  backend: QueueBackend,
  consumers: Consumers,
  subs: Subscriptions,
): void {
  const fn = (
    id: string,
    description: string,
    handler: (input: unknown, ctx: HandlerContext) => Promise<unknown>,
    aliases: string[] = [],
  ) => {
    const answered = (input: unknown, ctx: HandlerContext) =>
      handler(input, ctx).catch((err: unknown) => {
        throw withQueueCode(err);
      });
    for (const name of [id, ...aliases, ...(III_NAMES[id] ?? [])]) {
      client.registerFunction(name, answered, { description });
    }
  };

  /** One job the engine hands over (docs/protocol.md, "3.5 Enqueue"); `traceparent` is the span to run it under, if any. */
  const enqueueFromEngine = async (o: Obj, f: string, traceparent: string | undefined): Promise<string> => {
    const queue = str(o, 'queue', f);
    const id = optStr(o, 'messageReceiptId', f);
    if (!consumers.has(queue)) await consumers.ensure(queue);
    const job: JobInput = {
      function_id: str(o, 'function_id', f),
      data: jobData(o, f),
      traceparent: traceparent ?? optStr(o, 'traceparent', f) ?? null,
      baggage: optStr(o, 'baggage', f) ?? null,
    };
    if (id) {
      job.id = id;
      job.dedupe = false; // the engine makes a fresh receipt id per call
    }
    return backend.enqueue(queue, job);
  };

  fn(
    'engine::queue::enqueue',
    'Enqueues a function call (TriggerAction.Enqueue); resolves once durable',
    async (input, ctx) => {
      const f = 'engine::queue::enqueue';
      // the job runs under this call's span (the engine's span of the enqueue), else the caller's trace
      const traceparent = client.telemetry !== undefined ? ctx.traceparent : undefined;
      const messageReceiptId = await enqueueFromEngine(asObject(input, f), f, traceparent);
      return { messageReceiptId };
    },
  );

  // The engine hands over a turn's enqueues in one call when this exists (engine/src/modules/enqueue). Not with
  // telemetry: each job then runs under its own hand-over's span, which needs a call per job.
  if (client.telemetry === undefined) {
    fn(
      'engine::queue::enqueue_batch',
      'Enqueues several function calls handed over by the engine: {jobs: [...]} → {results: [...]} in order',
      async (input) => {
        const f = 'engine::queue::enqueue_batch';
        const jobs = asObject(input, f).jobs;
        if (!Array.isArray(jobs)) throw badInput(`${f}: 'jobs' must be an array`);
        const results = await Promise.all(
          jobs.map((o: unknown) =>
            enqueueFromEngine(asObject(o, f), f, undefined).then(
              (messageReceiptId) => ({ messageReceiptId }),
              (err: unknown) => ({ error: errorInfo(err) }),
            ),
          ),
        );
        return { results };
      },
    );
  }

  fn('queue::enqueue', 'Enqueues a call of function_id on a queue: {queue, function_id, data, id?}', async (input) => {
    const o = asObject(input, 'queue::enqueue');
    const queue = queueName(o, 'queue::enqueue');
    const id = optStr(o, 'id', 'queue::enqueue');
    await consumers.ensure(queue);
    const function_id = str(o, 'function_id', 'queue::enqueue');
    const data = jobData(o, 'queue::enqueue');
    const messageReceiptId = await backend.enqueue(queue, { ...(id ? { id } : {}), function_id, data });
    return { queue, messageReceiptId };
  });

  fn('queue::publish', 'Publishes {topic, data, id?}: one durable job per subscriber of the topic', async (input) => {
    const o = asObject(input, 'queue::publish');
    const topic = queueName(o, 'queue::publish', QueueErrorCode.TopicNotSet);
    // With an `id`, each subscriber's job id is derived from it, so a retried publish enqueues nothing twice.
    const id = optStr(o, 'id', 'queue::publish');
    const data = jobData(o, 'queue::publish');
    await consumers.ensure(topic);
    const message_ids = await Promise.all(
      subs.of(topic).map((s) =>
        backend.enqueue(topic, {
          ...(id ? { id: `${id}:${s.function_id}` } : {}),
          function_id: s.function_id,
          data,
          condition_function_id: s.condition_function_id,
        }),
      ),
    );
    return { topic, message_ids };
  });

  fn('engine::queue::ensure', 'Makes sure a queue exists and is consumed: {queue}', async (input) => {
    const queue = queueName(asObject(input, 'engine::queue::ensure'), 'engine::queue::ensure');
    await consumers.ensure(queue);
    return backend.topicStats(queue);
  });

  registerAdminFunctions(fn, backend);
}

type Register = (id: string, d: string, h: (input: unknown) => Promise<unknown>, aliases?: string[]) => void;

function registerAdminFunctions(fn: Register, backend: QueueBackend): void {
  fn(
    'queue::list_topics',
    'Every queue with its counts: {topics: [{queue, topic, waiting, active, delayed, dead, completed, failed}]}',
    async () => ({ topics: (await backend.listTopics()).map((t) => ({ topic: t.queue, ...t })) }),
    ['engine::queue::list_topics'],
  );

  fn(
    'queue::topic_stats',
    'Counts of one queue: {topic|queue} → {queue, topic, waiting, active, delayed, dead, completed, failed}',
    async (input) => {
      const queue = queueName(asObject(input, 'queue::topic_stats'), 'queue::topic_stats');
      return { topic: queue, ...(await backend.topicStats(queue)) };
    },
    ['engine::queue::topic_stats'],
  );

  fn(
    'queue::dlq_topics',
    'Queues that hold dead letters: {topics: [{queue, topic, count}]}',
    async () => ({
      topics: (await backend.listTopics())
        .filter((t) => t.dead > 0)
        .map((t) => ({ queue: t.queue, topic: t.queue, count: t.dead })),
    }),
    ['engine::queue::dlq_topics'],
  );

  fn(
    'queue::dlq_messages',
    'Dead letters of a queue, paged: {topic|queue, offset = 0, limit = 50}',
    async (input) => {
      const f = 'queue::dlq_messages';
      const o = asObject(input, f);
      const page = await backend.listDeadLetters(
        queueName(o, f),
        int(o, 'offset', 0, 0, 1e9, f),
        int(o, 'limit', 50, 1, 1000, f),
      );
      return { topic: page.queue, ...page };
    },
    ['engine::queue::dlq_messages'],
  );

  fn('queue::redrive', 'Moves every dead letter of a queue back into it: {queue|topic}', async (input) => {
    const queue = queueName(asObject(input, 'queue::redrive'), 'queue::redrive');
    return { queue, redriven: await backend.redrive(queue) };
  });

  fn('queue::redrive_message', 'Moves one dead letter back: {queue|topic, message_id}', async (input) => {
    const f = 'queue::redrive_message';
    const o = asObject(input, f);
    const queue = queueName(o, f);
    const message_id = str(o, 'message_id', f);
    const redriven = await backend.redriveMessage(queue, message_id);
    if (!redriven) throw badInput(`no dead letter '${message_id}' in queue '${queue}'`, QueueErrorCode.NotFound);
    return { queue, message_id, redriven };
  });

  fn('queue::discard_message', 'Deletes one dead letter for good: {queue|topic, message_id}', async (input) => {
    const f = 'queue::discard_message';
    const o = asObject(input, f);
    const queue = queueName(o, f);
    const message_id = str(o, 'message_id', f);
    const discarded = await backend.discardMessage(queue, message_id);
    if (!discarded) throw badInput(`no dead letter '${message_id}' in queue '${queue}'`, QueueErrorCode.NotFound);
    return { queue, message_id, discarded, redriven: false };
  });
}

/** A job's refusal as the batch answers it: the code and message the single hand-over's error would carry. */
function errorInfo(thrown: unknown): { code: string; message: string } {
  const err = withQueueCode(thrown);
  if (err instanceof InvocationError) return { code: err.code, message: err.detail };
  return { code: 'invocation_failed', message: err instanceof Error ? err.message : String(err) };
}
