/**
 * Every module class a config file may name, what runs it (a capability worker process or an in-engine module) and the
 * schema of its `config:` object (docs/config.md: each module's section says whether it is an engine module or a
 * capability worker process).
 */
import type { z } from 'zod';
import {
  bridgeClientConfigSchema,
  execConfigSchema,
  httpFunctionsConfigSchema,
  pubsubConfigSchema,
  telemetryConfigSchema,
} from './modules/index.js';
import {
  cronConfigSchema,
  httpConfigSchema,
  observabilityConfigSchema,
  queueConfigSchema,
  stateConfigSchema,
  streamConfigSchema,
} from './worker-schemas.js';

export const MODULE_CLASSES = {
  http: 'modules::api::RestApiModule',
  state: 'modules::state::StateModule',
  queue: 'modules::queue::QueueModule',
  cron: 'modules::cron::CronModule',
  stream: 'modules::stream::StreamModule',
  pubsub: 'modules::pubsub::PubSubModule',
  observability: 'modules::observability::OtelModule',
  httpFunctions: 'modules::http_functions::HttpFunctionsModule',
  exec: 'modules::shell::ExecModule',
  bridgeClient: 'modules::bridge_client::BridgeClientModule',
  telemetry: 'modules::telemetry::TelemetryModule',
} as const;

export type ModuleClass = (typeof MODULE_CLASSES)[keyof typeof MODULE_CLASSES];

/** The capability workers: `workers/<dir>/dist/main.js`, the `name:` that selects them, their module class. */
export const CAPABILITY_WORKERS = [
  { dir: 'http', name: 'svc-http', class: MODULE_CLASSES.http },
  { dir: 'state', name: 'svc-state', class: MODULE_CLASSES.state },
  { dir: 'queue', name: 'svc-queue', class: MODULE_CLASSES.queue },
  { dir: 'cron', name: 'svc-cron', class: MODULE_CLASSES.cron },
  { dir: 'stream', name: 'svc-stream', class: MODULE_CLASSES.stream },
] as const;

/**
 * The observability module's worker: a process like the capability workers, but always spawned by the engine
 * that has `modules::observability::OtelModule` (the module also has an engine side: spans of every invocation,
 * the `/otel` hand-off), so it is not a service of its own under docker compose.
 */
export const OBSERVABILITY_WORKER = {
  dir: 'observability',
  name: 'svc-otel',
  class: MODULE_CLASSES.observability,
} as const;

export type CapabilityWorker = (typeof CAPABILITY_WORKERS)[number];
export type WorkerName = CapabilityWorker['name'];

export function workerForClass(cls: string): CapabilityWorker | undefined {
  return CAPABILITY_WORKERS.find((w) => w.class === cls);
}

export function workerForName(name: string): CapabilityWorker | undefined {
  return CAPABILITY_WORKERS.find((w) => w.name === name);
}

export const MODULE_CONFIG_SCHEMAS = {
  [MODULE_CLASSES.http]: httpConfigSchema,
  [MODULE_CLASSES.state]: stateConfigSchema,
  [MODULE_CLASSES.queue]: queueConfigSchema,
  [MODULE_CLASSES.cron]: cronConfigSchema,
  [MODULE_CLASSES.stream]: streamConfigSchema,
  [MODULE_CLASSES.pubsub]: pubsubConfigSchema,
  [MODULE_CLASSES.observability]: observabilityConfigSchema,
  [MODULE_CLASSES.httpFunctions]: httpFunctionsConfigSchema,
  [MODULE_CLASSES.exec]: execConfigSchema,
  [MODULE_CLASSES.bridgeClient]: bridgeClientConfigSchema,
  [MODULE_CLASSES.telemetry]: telemetryConfigSchema,
} as const satisfies Record<ModuleClass, z.ZodType>;
