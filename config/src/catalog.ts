/**
 * Every module class a config file may name, what runs it (a capability worker process or an in-engine module)
 * and the schema of its `config:` object (DESIGN.md "Config entry → what runs").
 */
import type { z } from 'zod';
import {
  bridgeClientConfigSchema,
  cronConfigSchema,
  execConfigSchema,
  httpConfigSchema,
  httpFunctionsConfigSchema,
  observabilityConfigSchema,
  pubsubConfigSchema,
  queueConfigSchema,
  stateConfigSchema,
  streamConfigSchema,
  telemetryConfigSchema,
} from './modules/index.js';

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
