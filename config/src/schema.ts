/**
 * The one schema of a whole config file. Top level: engine keys (`port` ...) and `modules` (or `workers`, the
 * same list under its newer name). An entry is `class` + optional `config`, or `name` (`svc-http` ...) + `config`;
 * a `name:` entry is normalised to its class before validation, so both spellings give the same resolved entry.
 */
import {
  DEFAULT_ENGINE_PORT,
  DEFAULT_HEARTBEAT_INTERVAL_MS,
  DEFAULT_HEARTBEAT_TIMEOUT_MS,
  DEFAULT_INVOCATION_TIMEOUT_MS,
} from '@svc/sdk/core';
import { z } from 'zod';
import {
  CAPABILITY_WORKERS,
  MODULE_CLASSES,
  MODULE_CONFIG_SCHEMAS,
  workerForName,
  type ModuleClass,
} from './catalog.js';
import { clusterConfigSchema } from './cluster.js';
import { nonNegativeIntSchema, portSchema, positiveIntSchema } from '@svc/config-kit';
import { configurationModuleShape, liftConfigurationEntry } from './configuration-module.js';
import { liftWorkerManagers, workerManagerShape } from './worker-manager.js';

function entryWith<C extends ModuleClass, S extends z.ZodType>(cls: C, config: S) {
  return z
    .object({
      class: z.literal(cls),
      name: z
        .string()
        .min(1)
        .optional()
        .describe('A label; for capability workers, the name it runs under (`svc-state`).'),
      config: config.prefault({} as z.input<S>),
    })
    .strict();
}

const entryUnion = z.discriminatedUnion('class', [
  entryWith(MODULE_CLASSES.http, MODULE_CONFIG_SCHEMAS[MODULE_CLASSES.http]),
  entryWith(MODULE_CLASSES.state, MODULE_CONFIG_SCHEMAS[MODULE_CLASSES.state]),
  entryWith(MODULE_CLASSES.queue, MODULE_CONFIG_SCHEMAS[MODULE_CLASSES.queue]),
  entryWith(MODULE_CLASSES.cron, MODULE_CONFIG_SCHEMAS[MODULE_CLASSES.cron]),
  entryWith(MODULE_CLASSES.stream, MODULE_CONFIG_SCHEMAS[MODULE_CLASSES.stream]),
  entryWith(MODULE_CLASSES.pubsub, MODULE_CONFIG_SCHEMAS[MODULE_CLASSES.pubsub]),
  entryWith(MODULE_CLASSES.observability, MODULE_CONFIG_SCHEMAS[MODULE_CLASSES.observability]),
  entryWith(MODULE_CLASSES.httpFunctions, MODULE_CONFIG_SCHEMAS[MODULE_CLASSES.httpFunctions]),
  entryWith(MODULE_CLASSES.exec, MODULE_CONFIG_SCHEMAS[MODULE_CLASSES.exec]),
  entryWith(MODULE_CLASSES.bridgeClient, MODULE_CONFIG_SCHEMAS[MODULE_CLASSES.bridgeClient]),
  entryWith(MODULE_CLASSES.telemetry, MODULE_CONFIG_SCHEMAS[MODULE_CLASSES.telemetry]),
]);

const WORKER_NAMES = CAPABILITY_WORKERS.map((w) => `'${w.name}'`).join(', ');

/** `{ name: 'svc-http', config }` → `{ class: 'modules::api::RestApiModule', name: 'svc-http', config }`. */
function normaliseEntry(value: unknown, ctx: z.core.$RefinementCtx): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const entry = value as Record<string, unknown>;
  if (entry['class'] !== undefined || entry['name'] === undefined) return value;
  const worker = typeof entry['name'] === 'string' ? workerForName(entry['name']) : undefined;
  if (!worker) {
    ctx.issues.push({
      code: 'custom',
      path: ['name'],
      input: entry['name'],
      message: `unknown worker name ${JSON.stringify(entry['name'])}; expected one of ${WORKER_NAMES} (or give a 'class:')`,
    });
    return value;
  }
  return { ...entry, class: worker.class };
}

export const moduleEntrySchema = z.preprocess(normaliseEntry, entryUnion);

/** Engine-level keys (names match the engine's options, `engine/src/engine.ts`). */
const engineShape = {
  port: portSchema.default(DEFAULT_ENGINE_PORT).describe('Engine WebSocket port for SDK and worker connections.'),
  host: z.string().min(1).default('0.0.0.0').describe('Listen address of the engine WebSocket.'),
  handshake_timeout_ms: positiveIntSchema
    .default(10000)
    .describe('A WebSocket upgrade whose headers do not arrive within this time is closed.'),
  max_payload_bytes: positiveIntSchema
    .default(16 * 1024 * 1024)
    .describe('Largest accepted inbound frame; a bigger one closes that connection with 1009.'),
  max_buffered_bytes: positiveIntSchema
    .default(32 * 1024 * 1024)
    .describe('Unsent outbound bytes a connection may accumulate (a client that stops reading) before it is dropped.'),
  max_connections: positiveIntSchema
    .default(20_000)
    .describe(
      'WebSocket connections (workers, telemetry, data channels) one listener holds at most; an upgrade past it is answered `503` with `Retry-After`, and an SDK tries again later. An idle connection costs the engine about 10 KiB.',
    ),
  max_registration_bytes: positiveIntSchema
    .default(1024 * 1024)
    .describe(
      'Characters one registration may take (its id, and its description, schemas, config and metadata as JSON); a larger function, trigger or trigger type is refused with `registration_too_large`.',
    ),
  max_registrations_per_worker: positiveIntSchema
    .default(100_000)
    .describe(
      'Functions, triggers and trigger types one worker connection may hold; past it a new one is refused with `registration_limit`.',
    ),
  max_in_flight: positiveIntSchema
    .default(1_000_000)
    .describe(
      "Calls the engine may have in flight in all (sent to a worker, not answered yet); a call past it is answered with `engine_overloaded` and not sent. Bounds the engine's memory for unanswered calls (about 0.5 KB each) whatever the number of workers.",
    ),
  max_in_flight_per_worker: positiveIntSchema
    .default(100_000)
    .describe(
      'Calls one worker connection may be executing at once (sent to it, not answered yet); a call past it is answered with `worker_overloaded` and not sent. Bounds what a caller flooding a function whose handler never answers can make the engine hold.',
    ),
  max_in_flight_per_caller: positiveIntSchema
    .default(100_000)
    .describe(
      'Calls one connection may be waiting on at once (sent for it, not answered yet); its next call past it is answered with `caller_overloaded` and not sent. Keeps one caller from taking the whole of `max_in_flight` from the others; fire-and-forget calls do not count.',
    ),
  invocation_timeout_ms: positiveIntSchema
    .default(DEFAULT_INVOCATION_TIMEOUT_MS)
    .describe('Engine-side deadline of an invocation that carries no `timeout_ms` of its own.'),
  heartbeat_interval_ms: nonNegativeIntSchema
    .default(DEFAULT_HEARTBEAT_INTERVAL_MS)
    .describe('How often the engine pings every socket; 0 disables the pings.'),
  heartbeat_timeout_ms: positiveIntSchema
    .default(DEFAULT_HEARTBEAT_TIMEOUT_MS)
    .describe('A socket silent for longer than this is dropped.'),
  shutdown_grace_ms: positiveIntSchema
    .default(5000)
    .describe('On SIGTERM/SIGINT: how long spawned processes get to exit before SIGKILL.'),
  log_level: z
    .enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'])
    .default('info')
    .describe('Engine log level (pino).'),
  /** The worker manager: `middleware_function_id`, `rbac` and extra `listeners` (config/src/worker-manager.ts). */
  ...workerManagerShape,
  /** Where `configuration::*` keeps values (config/src/configuration-module.ts). */
  ...configurationModuleShape,
  cluster: clusterConfigSchema
    .optional()
    .describe(
      'Engines sharing this key route as one cluster over NATS (docs/cluster.md); absent: the engine runs alone.',
    ),
};

/** The engine-level keys alone (the config reference documents them; `svcConfigSchema` validates the file). */
export const engineKeysSchema = z.object(engineShape).strict();

const configObject = z
  .object({ ...engineShape, modules: z.array(moduleEntrySchema) })
  .strict()
  .superRefine(checkPortConflicts);

/** Two listeners of one svc on the same TCP port would fail at start-up with EADDRINUSE; say so up front. */
function checkPortConflicts(
  config: { port: number; listeners: { port: number }[]; modules: { config: unknown }[] },
  ctx: z.core.$RefinementCtx,
): void {
  const taken = new Map<number, string>();
  if (config.port !== 0) taken.set(config.port, 'port (the engine)');
  config.listeners.forEach((listener, index) => {
    if (listener.port === 0) return;
    const other = taken.get(listener.port);
    if (other) {
      ctx.addIssue({
        code: 'custom',
        path: ['listeners', index, 'port'],
        message: `port ${listener.port} is already used by ${other}; give each listener its own port`,
      });
    } else {
      taken.set(listener.port, `listeners[${index}].port`);
    }
  });
  config.modules.forEach((entry, index) => {
    const port = (entry.config as { port?: unknown }).port;
    if (typeof port !== 'number' || port === 0) return;
    const path = `modules[${index}].config.port`;
    const other = taken.get(port);
    if (other) {
      ctx.addIssue({
        code: 'custom',
        path: ['modules', index, 'config', 'port'],
        message: `port ${port} is already used by ${other}; give each listener its own port`,
      });
    } else {
      taken.set(port, path);
    }
  });
}

/**
 * `workers:` is accepted as another name for `modules:` (never both); worker-manager entries in the list become
 * the engine's listener settings (config/src/worker-manager.ts).
 */
function normaliseTopLevel(value: unknown, ctx: z.core.$RefinementCtx): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const doc = value as Record<string, unknown>;
  if (!('workers' in doc)) return liftConfigurationEntry(liftWorkerManagers(doc));
  if ('modules' in doc) {
    ctx.issues.push({
      code: 'custom',
      path: ['workers'],
      input: doc['workers'],
      message: "'modules' and 'workers' are the same list; use only one of them",
    });
    return value;
  }
  const { workers, ...rest } = doc;
  return liftConfigurationEntry(liftWorkerManagers({ ...rest, modules: workers }));
}

export const svcConfigSchema = z.preprocess(normaliseTopLevel, configObject);

export type SvcConfigInput = z.input<typeof configObject>;
export type ModuleEntry = z.output<typeof entryUnion>;
/** The resolved config (defaults applied). `loadConfig` returns it deeply frozen. */
export type SvcConfig = z.output<typeof configObject>;
export type ModuleEntryOf<C extends ModuleClass> = Extract<ModuleEntry, { class: C }>;
