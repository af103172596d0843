/**
 * svc-otel: the observability module's worker (collection, storage, alerting, the `engine::traces::*` /
 * `engine::logs::*` query functions and the `log` trigger type). Spawned by the engine when the config has
 * `modules::observability::OtelModule` with `enabled: true` (config in SVC_MODULE_CONFIG), or started by hand
 * with `SVC_URL`.
 */
import { runCapabilityWorker } from '@svc/sdk';
import { readObservabilityConfig } from './config.js';
import { startOtelWorker } from './otel-worker.js';

const config = readObservabilityConfig();

void runCapabilityWorker({
  name: 'svc-otel',
  start: (client, logger) => startOtelWorker(client, logger, config),
});
