/**
 * Cluster test support: engines joined into one cluster over a real nats-server, workers of our SDK and of
 * iii-sdk connected to them, and the cluster's own view (`engine::cluster::status`).
 */
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { registerWorker, type SvcClient } from '@svc/sdk';
import { rawCall, startEngine, waitFor, type EngineProcess } from '../harness.js';

export const NATS_URL = process.env.SVC_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

export function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const s = net.connect(port, host);
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

export const natsPort = (url: string): number => Number(new URL(url.replace(/^nats:/, 'http:')).port || 4222);

/**
 * `n` engines sharing one cluster (a fresh name per call: test files do not see each other's engines);
 * `running` engines of that cluster are already up.
 */
export async function startCluster(n: number, natsUrl = NATS_URL, name = `t${randomUUID().slice(0, 8)}`, running = 0) {
  // detection in 2 s (the default is 3 s): fast enough for the tests, slow enough that a live engine stalled by a
  // loaded machine is not dropped for a moment
  const config = { cluster: { nats: natsUrl, name, heartbeat_interval_ms: 200, heartbeat_timeout_ms: 2000 } };
  const engines: EngineProcess[] = [];
  for (let i = 0; i < n; i++) engines.push(await startEngine({ config }));
  // every engine sees all the others
  for (const e of engines) {
    await waitFor(async () => (await peersOf(e.url)).length === n - 1 + running, 15000, 'cluster');
  }
  return engines;
}

export interface ClusterStatus {
  engine_id: string;
  cluster: string;
  state: 'ok' | 'degraded';
  nats: { connected: boolean; outage_ms: number };
  engines: { engine_id: string; url: string }[];
}

export async function statusOf(url: string): Promise<ClusterStatus> {
  const answer = await rawCall(url, 'engine::cluster::status', {}, 2000);
  if (answer.error !== undefined) throw new Error(`${answer.error.code}: ${answer.error.message}`);
  return answer.result as ClusterStatus;
}

export async function peersOf(url: string): Promise<string[]> {
  return (await statusOf(url)).engines.map((e) => e.engine_id);
}

/** The function ids `engine::functions::list` shows on the engine at `url`. */
export async function listedFunctions(url: string): Promise<string[]> {
  const answer = await rawCall(url, 'engine::functions::list', {}, 2000);
  return ((answer.result as { functions: { function_id: string }[] }).functions ?? []).map((f) => f.function_id);
}

/** Waits until `functionId` is listed on every engine of `urls`. */
export async function waitListedEverywhere(urls: string[], functionId: string): Promise<void> {
  for (const url of urls) {
    await waitFor(async () => (await listedFunctions(url)).includes(functionId), 10000, `${functionId} at ${url}`);
  }
}

/** A worker of our SDK, quiet, on one engine or several (failover). */
export function ourWorker(url: string | string[], name: string): SvcClient {
  return registerWorker(url, {
    workerName: name,
    logger: pino({ level: 'silent' }),
    reconnectionConfig: { initialDelayMs: 100, maxDelayMs: 500 },
  });
}
