/**
 * The Bridge backend for the conformance suite: a real engine (started once for the file) with a real svc-queue process
 * per test namespace (the builtin in-memory store, living as long as that process), and this process's
 * `BridgeQueueAdapter` forwarding to it. "A restart of the process" in the suite is a restart of the bridging side; the
 * remote svc-queue keeps the jobs. Its backoff is the documented default, 1000 ms (the suite's 50 ms is too short for a
 * job to wait out the moment between one bridging process closing and the next one consuming).
 */
import pino from 'pino';
import { spawnWorker, startEngine, waitForFunction, type Child, type EngineProcess } from '../../../test/harness.js';
import { BridgeQueueAdapter } from '../src/adapters/bridge.js';
import type { QueueBackend } from '../src/adapters/types.js';
import type { BackendOptions } from './backends.js';

let engine: Promise<EngineProcess> | undefined;
const remotes = new Map<string, Promise<Child>>();

function remoteEngine(): Promise<EngineProcess> {
  engine ??= startEngine({ readyTimeoutMs: 60_000 });
  return engine;
}

async function remoteQueue(ns: string, o: BackendOptions): Promise<Child> {
  const url = (await remoteEngine()).url;
  const child = spawnWorker('workers/queue/dist/main.js', {
    SVC_URL: url,
    SVC_WORKER_NAME: `svc-queue-${ns}`,
    SVC_MODULE_CONFIG: JSON.stringify({
      queue_configs: o.queueConfigs ?? {},
      adapter: {
        class: 'modules::queue::BuiltinQueueAdapter',
        config: {
          store_method: 'in_memory',
          max_attempts: o.maxAttempts ?? 3,
          backoff_ms: o.backoffMs ?? 1000,
          concurrency: o.concurrency ?? 10,
          poll_interval_ms: 20,
        },
      },
    }),
  });
  await waitForFunction(url, 'queue::topic_stats', 60_000);
  return child;
}

/** The suite's `make`: a bridge adapter whose `start()` first makes sure the namespace's remote svc-queue runs. */
export function makeBridge(ns: string, o: BackendOptions): QueueBackend {
  let inner: BridgeQueueAdapter | undefined;
  const adapter = (): BridgeQueueAdapter => {
    if (inner === undefined) throw new Error('bridge backend used before start()');
    return inner;
  };
  return {
    name: 'bridge',
    async start() {
      if (!remotes.has(ns)) remotes.set(ns, remoteQueue(ns, o));
      await remotes.get(ns);
      inner = new BridgeQueueAdapter({ bridge_url: (await remoteEngine()).url, logger: pino({ level: 'silent' }) });
      await inner.start();
    },
    enqueue: (q, job) => adapter().enqueue(q, job),
    consume: (q, h) => adapter().consume(q, h),
    settings: () => new BridgeQueueAdapter({ bridge_url: '', logger: pino({ level: 'silent' }) }).settings(),
    listTopics: () => adapter().listTopics(),
    topicStats: (q) => adapter().topicStats(q),
    listDeadLetters: (q, offset, limit) => adapter().listDeadLetters(q, offset, limit),
    redrive: (q) => adapter().redrive(q),
    redriveMessage: (q, id) => adapter().redriveMessage(q, id),
    discardMessage: (q, id) => adapter().discardMessage(q, id),
    close: async (grace) => inner?.close(grace),
  };
}

export async function cleanupBridge(ns: string): Promise<void> {
  const child = remotes.get(ns);
  remotes.delete(ns);
  await (await child)?.stop();
}
