/** The backends the conformance suite runs against, with a namespace per test so runs never share data. */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { Redis } from 'ioredis';
import { BuiltinQueueAdapter } from '../src/adapters/builtin.js';
import { KvserverAdapter } from '../src/adapters/bullmq.js';
import { BrokerAdapter } from '../src/adapters/rabbitmq.js';
import { registryName } from '../src/adapters/rabbitmq-topology.js';
import type { QueueBackend, QueueOverride } from '../src/adapters/types.js';
import { cleanupBridge, makeBridge } from './bridge-backend.js';

export const REDIS_URL = process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const AMQP_URL = process.env.SVC_TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

export interface BackendOptions {
  maxAttempts?: number;
  backoffMs?: number;
  concurrency?: number;
  queueConfigs?: Record<string, QueueOverride>;
}

export interface BackendKind {
  name: string;
  /** Jobs survive a restart of the process (everything but the in-memory store). */
  durable: boolean;
  /** Enqueue with an id the queue already holds is a no-op. */
  dedupes: boolean;
  /** Several processes share the queues (Redis, RabbitMQ). */
  shared: boolean;
  /** The completed / failed totals outlive the process (kept in the file, in Redis, or by the bridged svc-queue). */
  keepsTotals: boolean;
  available(): Promise<boolean>;
  /** Extra time a test may need because `start()` launches processes (the bridged engine's svc-queue). */
  extraStartMs?: number;
  /** Creates an adapter in namespace `ns`; the same ns reopens the same data. */
  make(ns: string, o: BackendOptions): QueueBackend;
  cleanup(ns: string): Promise<void>;
}

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-queue-test-'));

function builtin(store: 'in_memory' | 'file_based', ns: string, o: BackendOptions): QueueBackend {
  return new BuiltinQueueAdapter({
    max_attempts: o.maxAttempts ?? 3,
    backoff_ms: o.backoffMs ?? 50,
    concurrency: o.concurrency ?? 10,
    poll_interval_ms: 100,
    mode: 'concurrent',
    store_method: store,
    file_path: path.join(tmpRoot, ns),
    save_interval_ms: 1000,
    queue_configs: o.queueConfigs,
  });
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

export const backends: BackendKind[] = [
  {
    name: 'builtin in_memory',
    durable: false,
    dedupes: true,
    shared: false,
    keepsTotals: false,
    available: () => Promise.resolve(true),
    make: (ns, o) => builtin('in_memory', ns, o),
    cleanup: () => Promise.resolve(),
  },
  {
    name: 'builtin file_based',
    durable: true,
    dedupes: true,
    shared: false,
    keepsTotals: true,
    available: () => Promise.resolve(true),
    make: (ns, o) => builtin('file_based', ns, o),
    cleanup: (ns) => fs.promises.rm(path.join(tmpRoot, ns), { recursive: true, force: true }),
  },
  {
    name: 'KvserverAdapter (Redis)',
    durable: true,
    dedupes: true,
    shared: true,
    keepsTotals: true,
    available: () => portOpen(6379),
    make: (ns, o) =>
      new KvserverAdapter({
        kvserver_url: REDIS_URL,
        prefix: ns,
        max_attempts: o.maxAttempts ?? 3,
        backoff_ms: o.backoffMs ?? 50,
        concurrency: o.concurrency ?? 10,
        mode: 'concurrent',
        lock_duration_ms: 1000,
        stalled_interval_ms: 500,
        queue_configs: o.queueConfigs,
      }),
    cleanup: async (ns) => {
      const r = new Redis(REDIS_URL);
      const keys = await r.keys(`${ns}:*`);
      if (keys.length) await r.del(...keys);
      r.disconnect();
    },
  },
  {
    name: 'BrokerAdapter (RabbitMQ)',
    durable: true,
    dedupes: false,
    shared: true,
    keepsTotals: false,
    available: () => portOpen(5672),
    make: (ns, o) =>
      new BrokerAdapter({
        amqp_url: AMQP_URL,
        prefix: ns,
        max_attempts: o.maxAttempts ?? 3,
        backoff_ms: o.backoffMs ?? 50,
        prefetch_count: o.concurrency ?? 10,
        queue_mode: 'standard',
        queue_configs: o.queueConfigs,
      }),
    cleanup: (ns) => deleteBrokerQueues(ns),
  },
  {
    name: 'BrokerAdapter (RabbitMQ, quorum queues)',
    durable: true,
    dedupes: false,
    shared: true,
    keepsTotals: false,
    available: () => portOpen(5672),
    make: (ns, o) =>
      new BrokerAdapter({
        amqp_url: AMQP_URL,
        prefix: ns,
        max_attempts: o.maxAttempts ?? 3,
        backoff_ms: o.backoffMs ?? 50,
        prefetch_count: o.concurrency ?? 10,
        queue_mode: 'quorum',
        queue_configs: o.queueConfigs,
      }),
    cleanup: (ns) => deleteBrokerQueues(ns),
  },
  {
    name: 'Bridge (svc-queue of another engine)',
    extraStartMs: 40_000,
    durable: true,
    dedupes: true,
    shared: true,
    keepsTotals: true,
    available: () => Promise.resolve(true),
    make: (ns, o) => makeBridge(ns, o),
    cleanup: (ns) => cleanupBridge(ns),
  },
];

/** Deletes every queue whose name starts with `ns.` (the queues the tests declared). */
async function deleteBrokerQueues(ns: string): Promise<void> {
  const names = [...(brokerQueuesUsed.get(ns) ?? []), registryName(ns)];
  const conn = await amqp.connect(AMQP_URL);
  for (const n of names) {
    const ch = await conn.createChannel();
    ch.on('error', () => undefined);
    await ch.deleteQueue(n).catch(() => undefined);
    await ch.close().catch(() => undefined);
  }
  await conn.close();
}

/** The suite registers the broker queue names it used here, so cleanup can delete them. */
export const brokerQueuesUsed = new Map<string, string[]>();

export const newNamespace = (): string => `svct${randomUUID().slice(0, 8)}`;

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs: number, what = 'condition') {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await cond()) return;
    await sleep(10);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
