/**
 * The configuration registry behind `configuration::*` (docs/compatibility.md, "Configuration"): entries registered by
 * workers with a JSON Schema, values checked against it on every write. Pure and synchronous: no I/O, no timers; the
 * module turns its changes into `configuration` trigger events.
 */
import { createRequire } from 'node:module';
import type { Ajv, ValidateFunction } from 'ajv';

export interface ConfigurationEntry {
  id: string;
  name: string;
  description: string;
  schema: unknown;
  value: unknown;
  metadata?: unknown;
}

export type ConfigurationView = Omit<ConfigurationEntry, 'value'>;

export type ConfigurationEventType = 'configuration:registered' | 'configuration:updated' | 'configuration:deleted';

export interface ConfigurationChange {
  event_type: ConfigurationEventType;
  entry: ConfigurationEntry;
  old_value: unknown;
  new_value: unknown;
}

/** A refused operation; `code` is the wire error code. */
export class ConfigurationError extends Error {
  constructor(
    readonly code: 'NOT_FOUND' | 'NOT_REGISTERED' | 'INVALID_ID' | 'SCHEMA_INVALID',
    message: string,
  ) {
    super(message);
  }
}

const ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

export function viewOf(entry: ConfigurationEntry): ConfigurationView {
  const view: ConfigurationView = {
    id: entry.id,
    name: entry.name,
    description: entry.description,
    schema: entry.schema,
  };
  if (entry.metadata !== undefined) view.metadata = entry.metadata;
  return view;
}

const requireHere = createRequire(import.meta.url);
const loadAjv = (): { Ajv: typeof Ajv } => requireHere('ajv') as { Ajv: typeof Ajv };

export class ConfigurationStore {
  private readonly entries = new Map<string, { entry: ConfigurationEntry; validate: ValidateFunction }>();
  private ajvInstance: Ajv | undefined;

  /** Ajv is loaded at the first schema, not at start-up: most engines never register a configuration. */
  private get ajv(): Ajv {
    if (this.ajvInstance === undefined) {
      const { Ajv: AjvClass } = loadAjv();
      this.ajvInstance = new AjvClass({ allErrors: true, strict: false });
    }
    return this.ajvInstance;
  }

  register(input: Omit<ConfigurationEntry, 'value'> & { initial_value?: unknown }): ConfigurationChange {
    if (!ID.test(input.id)) {
      throw new ConfigurationError('INVALID_ID', `configuration id '${input.id}' must match ${ID.source}`);
    }
    const validate = this.compile(input.id, input.schema);
    const previous = this.entries.get(input.id)?.entry;
    const value = previous !== undefined ? previous.value : (input.initial_value ?? null);
    if (previous === undefined || input.initial_value !== undefined) this.check(input.id, validate, value);
    const entry: ConfigurationEntry = { ...withoutInitial(input), value };
    this.entries.set(input.id, { entry, validate });
    return { event_type: 'configuration:registered', entry, old_value: previous?.value ?? null, new_value: value };
  }

  set(id: string, value: unknown): ConfigurationChange {
    const found = this.entries.get(id);
    if (found === undefined) {
      throw new ConfigurationError(
        'NOT_REGISTERED',
        `configuration '${id}' is not registered (configuration::register it first)`,
      );
    }
    this.check(id, found.validate, value);
    const old_value = found.entry.value;
    found.entry = { ...found.entry, value };
    return { event_type: 'configuration:updated', entry: found.entry, old_value, new_value: value };
  }

  /** An entry read back from disk: trusted to be valid when it was written; its schema is compiled again. */
  restore(entry: ConfigurationEntry): void {
    this.entries.set(entry.id, { entry, validate: this.compile(entry.id, entry.schema) });
  }

  get(id: string): ConfigurationEntry {
    const found = this.entries.get(id);
    if (found === undefined) throw new ConfigurationError('NOT_FOUND', `configuration '${id}' not found`);
    return found.entry;
  }

  list(): ConfigurationView[] {
    return [...this.entries.values()]
      .map((e) => viewOf(e.entry))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  private compile(id: string, schema: unknown): ValidateFunction {
    if (typeof schema !== 'object' && typeof schema !== 'boolean') {
      throw new ConfigurationError('SCHEMA_INVALID', `configuration '${id}': schema must be a JSON Schema object`);
    }
    try {
      return this.ajv.compile(schema as object);
    } catch (err) {
      throw new ConfigurationError(
        'SCHEMA_INVALID',
        `configuration '${id}': schema is not valid: ${(err as Error).message}`,
      );
    }
  }

  private check(id: string, validate: ValidateFunction, value: unknown): void {
    if (validate(value)) return;
    const why = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`).join('; ');
    throw new ConfigurationError('SCHEMA_INVALID', `configuration '${id}': value does not match its schema: ${why}`);
  }
}

function withoutInitial(
  input: Omit<ConfigurationEntry, 'value'> & { initial_value?: unknown },
): Omit<ConfigurationEntry, 'value'> {
  const { initial_value: _ignored, ...rest } = input;
  return rest;
}
