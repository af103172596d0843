/** Shared set-up for the SDK's tests against the real engine: clients with a silent logger and fast reconnects. */
import { pino } from 'pino';
import { registerWorker, type SvcClient, type WorkerOptions } from '../src/index.js';

export const silent = pino({ level: process.env.SVC_TEST_VERBOSE === '1' ? 'debug' : 'silent' });

const clients = new Set<SvcClient>();

export function connect(url: string, name: string, options: WorkerOptions = {}): SvcClient {
  const client = registerWorker(url, {
    workerName: name,
    logger: silent,
    reconnectionConfig: { initialDelayMs: 100, maxDelayMs: 500 },
    ...options,
  });
  clients.add(client);
  return client;
}

export async function shutdownAll(): Promise<void> {
  await Promise.all([...clients].map((c) => c.shutdown()));
  clients.clear();
}

export function deferred<T = void>(): { promise: Promise<T>; resolve(v: T): void; reject(e: unknown): void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * Resolves once the engine has processed every frame `client` sent before: the engine handles a connection's
 * frames in order, so the answer to a call (here: to a function that does not exist) comes after them.
 */
export async function barrier(client: SvcClient): Promise<void> {
  await client.trigger({ function_id: 'sdk-test::barrier', payload: {}, timeoutMs: 5000 }).catch((err: unknown) => {
    if ((err as { code?: string }).code !== 'function_not_found') throw err;
  });
}
