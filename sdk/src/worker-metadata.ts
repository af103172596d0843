/**
 * What a worker tells the engine about itself after every (re)connect (`engine::workers::register`, docs/protocol.md
 * 1.6).
 */
import { hostname, platform, release, arch } from 'node:os';

/** The SDK's version as reported to the engine. */
export const SDK_VERSION = '0.1.0';

export interface WorkerMetadata {
  runtime: 'node';
  version: string;
  name: string;
  description?: string;
  os: string;
  pid: number;
  isolation: string | null;
}

export function defaultWorkerName(): string {
  return process.env.SVC_WORKER_NAME ?? `${hostname()}:${process.pid}`;
}

export function workerMetadata(name: string, description: string | undefined): WorkerMetadata {
  return {
    runtime: 'node',
    version: SDK_VERSION,
    name,
    ...(description !== undefined ? { description } : {}),
    os: `${platform()} ${release()} (${arch()})`,
    pid: process.pid,
    isolation: process.env.SVC_ISOLATION ?? null,
  };
}
