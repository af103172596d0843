/**
 * The worker manager's access control and its listeners (docs/rbac.md). The engine's own WebSocket (top-level
 * `port` / `host`) takes `middleware_function_id` and `rbac` at the top level; `listeners:` adds more WebSocket
 * endpoints to the same engine, each with its own port and its own rules.
 */
import { z } from 'zod';
import { portSchema } from '@svc/config-kit';

const functionIdSchema = z.string().min(1);

/** `match("pattern")` or `match('pattern')` → the pattern; a bare string is taken as the pattern itself. */
export function matchPattern(text: string): string {
  const t = text.trim();
  const quoted = /^match\((["'])(.*)\1\)$/.exec(t);
  return quoted ? (quoted[2] as string) : t;
}

/**
 * One entry of `expose_functions`: a function id pattern (`match("api::public::*")`, `*` matches any run of
 * characters) or `{ metadata: { key: value | match("pattern") } }` (every key must match the function's metadata).
 */
export const functionFilterSchema = z.union(
  [
    z
      .string()
      .min(1)
      .transform((s) => ({ match: matchPattern(s) })),
    z
      .object({ metadata: z.record(z.string(), z.unknown()) })
      .strict()
      .refine((f) => Object.keys(f.metadata).length > 0, {
        message: 'a metadata filter needs at least one key, e.g. { metadata: { public: true } }',
      }),
  ],
  { error: 'expected match("pattern") or { metadata: { key: value } }' },
);

export const rbacConfigSchema = z
  .object({
    /**
     * Called while a worker connects, with `{ headers, query_params, ip_address }`; its result (an AuthResult)
     * decides the session. Without it every connection gets the permissive session.
     */
    auth_function_id: functionIdSchema.optional(),
    /** What workers on this listener may call (besides the session's `allowed_functions`). Empty: nothing. */
    expose_functions: z.array(functionFilterSchema).default([]),
    /** Sees (and may rewrite or refuse) every `registerfunction`. */
    on_function_registration_function_id: functionIdSchema.optional(),
    /** Sees (and may rewrite or refuse) every `registertrigger`. */
    on_trigger_registration_function_id: functionIdSchema.optional(),
    /** Sees (and may rewrite or refuse) every `registertriggertype`. */
    on_trigger_type_registration_function_id: functionIdSchema.optional(),
  })
  .strict();

/** What a listener applies to the workers that connect through it. */
const accessShape = {
  /** Runs before every call a worker on this listener makes (except `engine::*`), instead of the call. */
  middleware_function_id: functionIdSchema.optional(),
  rbac: rbacConfigSchema.optional(),
};

export const listenerSchema = z
  .object({
    /** A label for logs and the banner; default `listener-<port>`. */
    name: z.string().min(1).optional(),
    port: portSchema,
    host: z.string().min(1).default('0.0.0.0'),
    ...accessShape,
  })
  .strict();

/** Top-level keys added to the engine's shape (config/src/schema.ts). */
export const workerManagerShape = {
  ...accessShape,
  /** More WebSocket endpoints of the same engine, each with its own port and access rules. */
  listeners: z.array(listenerSchema).default([]),
};

export type FunctionFilter = z.output<typeof functionFilterSchema>;
export type RbacConfig = z.output<typeof rbacConfigSchema>;
export type ListenerConfig = z.output<typeof listenerSchema>;

/** Entries that configure a worker manager the way the original engine's config does (one per listener). */
const WORKER_MANAGER_NAMES: ReadonlySet<string> = new Set(['iii-worker-manager', 'worker-manager']);
export const WORKER_MANAGER_CLASS = 'modules::worker_manager::WorkerManagerModule';

function isWorkerManagerEntry(entry: unknown): entry is { config?: unknown } {
  if (typeof entry !== 'object' || entry === null) return false;
  const e = entry as Record<string, unknown>;
  return e['class'] === WORKER_MANAGER_CLASS || (typeof e['name'] === 'string' && WORKER_MANAGER_NAMES.has(e['name']));
}

/**
 * `modules: [{ name: iii-worker-manager, config: {port, host, middleware_function_id, rbac} }, …]` → listeners.
 * Without a top-level `port`, the first such entry configures the engine's own listener; every other one becomes
 * an entry of `listeners`. Keys written at the top level win over the first entry's.
 */
export function liftWorkerManagers(doc: Record<string, unknown>): Record<string, unknown> {
  const modules = doc['modules'];
  if (!Array.isArray(modules) || !modules.some(isWorkerManagerEntry)) return doc;
  const configs = modules.filter(isWorkerManagerEntry).map((m) => (m.config ?? {}) as Record<string, unknown>);
  const rest = { ...doc, modules: modules.filter((m) => !isWorkerManagerEntry(m)) };
  const main = 'port' in doc ? undefined : configs.shift();
  const listeners = [...(Array.isArray(doc['listeners']) ? (doc['listeners'] as unknown[]) : []), ...configs];
  return { ...main, ...rest, listeners };
}
