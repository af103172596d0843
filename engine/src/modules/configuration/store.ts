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
    readonly code: 'NOT_FOUND' | 'NOT_REGISTERED' | 'INVALID_ID' | 'SCHEMA_INVALID' | 'TOO_LARGE',
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

/**
 * How large configurations may be, in characters of their JSON text (schema, value, name, description, metadata).
 * They live in the engine's memory, and on disk are all read back at start: without a bound, a worker registering
 * configurations of 8 MiB ran the engine out of heap at about 500 of them (every worker lost its connection), and the
 * restart read the 4 GB back at the edge of the heap.
 */
export interface ConfigurationLimits {
  /** One configuration (default 1 MiB). */
  maxEntryBytes: number;
  /** All of them together (default 64 MiB). */
  maxTotalBytes: number;
}

export const DEFAULT_CONFIGURATION_LIMITS: ConfigurationLimits = {
  maxEntryBytes: 1024 * 1024,
  maxTotalBytes: 64 * 1024 * 1024,
};

interface Held {
  entry: ConfigurationEntry;
  /** Its size as `sizeOf` measures it. */
  bytes: number;
}

export class ConfigurationStore {
  private readonly entries = new Map<string, Held>();
  /** The sum of the entries' `bytes`. */
  private total = 0;
  /** Writes run one at a time, in call order, each from its check to its change: as if they were synchronous. */
  private writes: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly checker: SchemaChecker = new SchemaChecker(),
    private readonly limits: ConfigurationLimits = DEFAULT_CONFIGURATION_LIMITS,
  ) {}

  register(input: Omit<ConfigurationEntry, 'value'> & { initial_value?: unknown }): Promise<ConfigurationChange> {
    return this.serially(async () => {
      if (!ID.test(input.id)) {
        throw new ConfigurationError('INVALID_ID', `configuration id '${input.id}' must match ${ID.source}`);
      }
      const previous = this.entries.get(input.id)?.entry;
      const value = previous !== undefined ? previous.value : (input.initial_value ?? null);
      const checkValue = previous === undefined || input.initial_value !== undefined;
      const entry: ConfigurationEntry = { ...withoutInitial(input), value };
      const bytes = this.admit(entry, this.entries.get(input.id));
      await this.check(input.id, input.schema, checkValue ? [value] : []);
      this.hold(entry, bytes);
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
      const entry = { ...found.entry, value };
      const bytes = this.admit(entry, found);
      await this.check(id, found.entry.schema, [value]);
      const old_value = found.entry.value;
      this.hold(entry, bytes);
      return { event_type: 'configuration:updated', entry, old_value, new_value: value };
    });
  }

  /** An entry read back from disk: its value was checked when it was written; its schema must still compile. */
  restore(entry: ConfigurationEntry): Promise<void> {
    return this.serially(async () => {
      await this.check(entry.id, entry.schema, []);
      // kept whatever its size (the limits may have been lowered since): nothing stored is dropped
      this.hold(entry, sizeOf(entry) ?? 0);
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

  /** The size `entry` would have, if the limits allow it in place of `previous`; else `TOO_LARGE`. */
  private admit(entry: ConfigurationEntry, previous: Held | undefined): number {
    const { maxEntryBytes, maxTotalBytes } = this.limits;
    const bytes = sizeOf(entry);
    if (bytes === undefined || bytes > maxEntryBytes) {
      const size = bytes === undefined ? 'is nested too deeply to be written as JSON' : `has ${bytes} characters`;
      throw new ConfigurationError(
        'TOO_LARGE',
        `configuration '${entry.id}' ${size}, past configuration.max_entry_bytes (${maxEntryBytes}); keep large ` +
          'data in state (state::set) and its key in the configuration',
      );
    }
    const total = this.total - (previous?.bytes ?? 0) + bytes;
    if (bytes > (previous?.bytes ?? 0) && total > maxTotalBytes) {
      throw new ConfigurationError(
        'TOO_LARGE',
        `configuration '${entry.id}' would take the configurations to ${total} characters, past ` +
          `configuration.max_total_bytes (${maxTotalBytes}): raise it, or remove the files of configurations no ` +
          'longer used from configuration.directory',
      );
    }
    return bytes;
  }

  private hold(entry: ConfigurationEntry, bytes: number): void {
    this.total += bytes - (this.entries.get(entry.id)?.bytes ?? 0);
    this.entries.set(entry.id, { entry, bytes });
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

/** Characters of `entry` as JSON (what its file holds); undefined when it cannot be written (nested too deeply). */
function sizeOf(entry: ConfigurationEntry): number | undefined {
  try {
    return JSON.stringify(entry).length;
  } catch {
    return undefined;
  }
}
