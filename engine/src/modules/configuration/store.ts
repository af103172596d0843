/**
 * The configuration registry behind `configuration::*` (docs/compatibility.md, "Configuration"): entries registered by
 * workers with a JSON Schema, values checked against it on every write (by schema-checker.ts, off the event loop).
 * No I/O of its own: the module turns its changes into `configuration` trigger events.
 */
import { SchemaChecker } from './schema-checker.js';

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

export class ConfigurationStore {
  private readonly entries = new Map<string, { entry: ConfigurationEntry }>();
  /** Writes run one at a time, in call order, each from its check to its change: as if they were synchronous. */
  private writes: Promise<unknown> = Promise.resolve();

  constructor(private readonly checker: SchemaChecker = new SchemaChecker()) {}

  register(input: Omit<ConfigurationEntry, 'value'> & { initial_value?: unknown }): Promise<ConfigurationChange> {
    return this.serially(async () => {
      if (!ID.test(input.id)) {
        throw new ConfigurationError('INVALID_ID', `configuration id '${input.id}' must match ${ID.source}`);
      }
      const previous = this.entries.get(input.id)?.entry;
      const value = previous !== undefined ? previous.value : (input.initial_value ?? null);
      const checkValue = previous === undefined || input.initial_value !== undefined;
      await this.check(input.id, input.schema, checkValue ? [value] : []);
      const entry: ConfigurationEntry = { ...withoutInitial(input), value };
      this.entries.set(input.id, { entry });
      return { event_type: 'configuration:registered', entry, old_value: previous?.value ?? null, new_value: value };
    });
  }

  set(id: string, value: unknown): Promise<ConfigurationChange> {
    return this.serially(async () => {
      const found = this.entries.get(id);
      if (found === undefined) {
        throw new ConfigurationError(
          'NOT_REGISTERED',
          `configuration '${id}' is not registered (configuration::register it first)`,
        );
      }
      await this.check(id, found.entry.schema, [value]);
      const old_value = found.entry.value;
      found.entry = { ...found.entry, value };
      return { event_type: 'configuration:updated', entry: found.entry, old_value, new_value: value };
    });
  }

  /** An entry read back from disk: its value was checked when it was written; its schema must still compile. */
  restore(entry: ConfigurationEntry): Promise<void> {
    return this.serially(async () => {
      await this.check(entry.id, entry.schema, []);
      this.entries.set(entry.id, { entry });
    });
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

  close(): Promise<void> {
    return this.checker.close();
  }

  private serially<T>(write: () => Promise<T>): Promise<T> {
    const done = this.writes.then(write);
    this.writes = done.catch(() => undefined);
    return done;
  }

  private async check(id: string, schema: unknown, value: [] | [unknown]): Promise<void> {
    if (typeof schema !== 'object' && typeof schema !== 'boolean') {
      throw new ConfigurationError('SCHEMA_INVALID', `configuration '${id}': schema must be a JSON Schema object`);
    }
    const outcome = await this.checker.check(schema, ...value);
    if (outcome.kind === 'schema') {
      throw new ConfigurationError('SCHEMA_INVALID', `configuration '${id}': schema is not valid: ${outcome.message}`);
    }
    if (outcome.kind === 'value') {
      throw new ConfigurationError(
        'SCHEMA_INVALID',
        `configuration '${id}': value does not match its schema: ${outcome.message}`,
      );
    }
    if (outcome.kind === 'timeout') {
      throw new ConfigurationError(
        'SCHEMA_INVALID',
        `configuration '${id}': checking the value against its schema took longer than ${outcome.budgetMs} ms ` +
          '(a pattern that backtracks, or uniqueItems over a long array of objects?); nothing was stored',
      );
    }
  }
}

function withoutInitial(
  input: Omit<ConfigurationEntry, 'value'> & { initial_value?: unknown },
): Omit<ConfigurationEntry, 'value'> {
  const { initial_value: _ignored, ...rest } = input;
  return rest;
}
