/**
 * The one schema of a whole config file. Top level: engine keys (`port` ...) and `modules` (or `workers`, the
 * same list under its newer name). An entry is `class` + optional `config`, or `name` (`svc-http` ...) + `config`;
 * a `name:` entry is normalised to its class before validation, so both spellings give the same resolved entry.
 */
import { z } from 'zod';
import {
  CAPABILITY_WORKERS,
  MODULE_CLASSES,
  MODULE_CONFIG_SCHEMAS,
  workerForName,
  type ModuleClass,
} from './catalog.js';
import { portSchema, positiveIntSchema } from './modules/common.js';

function entrySchema<C extends ModuleClass>(cls: C) {
  return entryWith(cls, MODULE_CONFIG_SCHEMAS[cls]);
}

function entryWith<C extends ModuleClass, S extends z.ZodType>(cls: C, config: S) {
  return z
    .object({
      class: z.literal(cls),
      /** A label; for capability workers, the name it runs under (`svc-state`). */
      name: z.string().min(1).optional(),
      config: config.prefault({} as z.input<S>),
    })
    .strict();
}

const entryUnion = z.discriminatedUnion('class', [
  entrySchema(MODULE_CLASSES.http),
  entrySchema(MODULE_CLASSES.state),
  entrySchema(MODULE_CLASSES.queue),
  entrySchema(MODULE_CLASSES.cron),
  entrySchema(MODULE_CLASSES.stream),
  entrySchema(MODULE_CLASSES.pubsub),
  entrySchema(MODULE_CLASSES.observability),
  entrySchema(MODULE_CLASSES.httpFunctions),
  entrySchema(MODULE_CLASSES.exec),
  entrySchema(MODULE_CLASSES.bridgeClient),
  entrySchema(MODULE_CLASSES.telemetry),
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

/** Engine-level keys (PROTOCOL.md worker-manager config plus the limits a user needs to set). */
const engineShape = {
  /** Engine WebSocket port for SDK and worker connections. */
  port: portSchema.default(49134),
  host: z.string().min(1).default('0.0.0.0'),
  /** A WebSocket upgrade that does not complete within this time is closed. */
  handshake_timeout_ms: positiveIntSchema.default(10000),
  /** Largest accepted WebSocket frame; a bigger one closes that connection with 1009. */
  max_payload_bytes: positiveIntSchema.default(16 * 1024 * 1024),
  /** Engine-side cap on a routed invocation; 0 means none (the caller's own timeout applies). */
  invocation_timeout_ms: z.number().int().min(0).default(0),
  /** Interval of the engine's WebSocket pings; a worker that misses two is dropped. */
  heartbeat_interval_ms: positiveIntSchema.default(20000),
  /** On SIGTERM/SIGINT: how long spawned processes get to exit before SIGKILL. */
  shutdown_grace_ms: positiveIntSchema.default(5000),
};

const configObject = z.object({ ...engineShape, modules: z.array(moduleEntrySchema) }).strict();

/** `workers:` is accepted as another name for `modules:` (never both). */
function normaliseTopLevel(value: unknown, ctx: z.core.$RefinementCtx): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const doc = value as Record<string, unknown>;
  if (!('workers' in doc)) return value;
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
  return { ...rest, modules: workers };
}

export const svcConfigSchema = z.preprocess(normaliseTopLevel, configObject);

export type SvcConfigInput = z.input<typeof configObject>;
export type ModuleEntry = z.output<typeof entryUnion>;
/** The resolved config (defaults applied). `loadConfig` returns it deeply frozen. */
export type SvcConfig = z.output<typeof configObject>;
export type ModuleEntryOf<C extends ModuleClass> = Extract<ModuleEntry, { class: C }>;
