/**
 * `KvStore` with `store_method: file_based`: one SQLite database (better-sqlite3) in WAL mode with
 * `synchronous=FULL`, so a write is acknowledged only after its WAL frames are fsynced: it survives `kill -9` and
 * power loss. Writes that arrive in the same event-loop turn are committed together in one transaction (group
 * commit: one fsync for all of them, each still gets its own `old_value` in arrival order).
 *
 * `save_interval_ms` only sets how often the WAL is checkpointed into the main file and truncated (compaction);
 * durability never waits for it. After an I/O error the store refuses further writes (`store_failed`) until it is
 * reopened: after a failed fsync the kernel may have dropped dirty pages, so later "successful" fsyncs prove nothing.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { Logger } from 'pino';
import { byKey, changeOf, LocalFeed, parseStored } from './feed.js';
import {
  closedError,
  StoreError,
  type ChangeListener,
  type JsonValue,
  type Mutation,
  type StateAdapter,
  type StateChange,
  type StateEntry,
  type UpdateResult,
  type WriteResult,
} from './types.js';
import { StateErrorCode } from '../error-codes.js';

export interface FileAdapterOptions {
  filePath: string;
  saveIntervalMs: number;
  logger?: Logger;
}

/** A write waiting for the next group commit. `run` executes inside the transaction. */
interface PendingWrite {
  run(): { result: unknown; change?: StateChange };
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

type Statement = Database.Statement<unknown[], unknown>;

export class FileAdapter implements StateAdapter {
  private db: Database.Database | undefined;
  private statements: Record<'get' | 'upsert' | 'remove' | 'list' | 'groups', Statement> | undefined;
  private readonly feed: LocalFeed;
  private queue: PendingWrite[] = [];
  private flushScheduled = false;
  private checkpointTimer: NodeJS.Timeout | undefined;
  private failure: StoreError | undefined;
  private closed = false;

  constructor(private readonly options: FileAdapterOptions) {
    this.feed = new LocalFeed(options.logger);
  }

  async start(): Promise<void> {
    const path = databasePath(this.options.filePath);
    mkdirSync(dirname(path), { recursive: true });
    // A short busy timeout: the only other holder of the file would be a second svc-state (refused below).
    const db = new Database(path, { timeout: 1000 });
    try {
      // Exclusive: a second svc-state on the same file fails at start instead of missing the other's changes.
      db.pragma('locking_mode = EXCLUSIVE');
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.exec(
        'CREATE TABLE IF NOT EXISTS kv (scope TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (scope, key)) WITHOUT ROWID',
      );
      db.exec('BEGIN IMMEDIATE; COMMIT'); // takes the exclusive lock now
      syncDirectory(dirname(path)); // the new file's directory entry is durable too, not only its contents
      // Never serve from a damaged file: check its structure once before the first answer.
      const check = db.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new Error(`the database failed its integrity check (${String(check)})`);
    } catch (err) {
      db.close();
      const hint = 'restore it from a backup or move it aside to start empty';
      throw new StoreError(StateErrorCode.StoreOpenFailed, `cannot open state file ${path}: ${String(err)}; ${hint}`, {
        cause: err,
      });
    }
    this.db = db;
    this.statements = {
      get: db.prepare('SELECT value FROM kv WHERE scope = ? AND key = ?'),
      upsert: db.prepare(
        'INSERT INTO kv (scope, key, value) VALUES (?, ?, ?) ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value',
      ),
      remove: db.prepare('DELETE FROM kv WHERE scope = ? AND key = ?'),
      list: db.prepare('SELECT key, value FROM kv WHERE scope = ?'),
      groups: db.prepare('SELECT DISTINCT scope FROM kv'),
    };
    this.checkpointTimer = setInterval(() => this.checkpoint(), this.options.saveIntervalMs);
    this.checkpointTimer.unref();
  }

  async get(scope: string, key: string): Promise<JsonValue | undefined> {
    return this.read(scope, key);
  }

  async getJson(scope: string, key: string): Promise<string | undefined> {
    return this.readJson(scope, key);
  }

  set(scope: string, key: string, value: JsonValue, json?: string): Promise<WriteResult> {
    const text = json ?? JSON.stringify(value);
    return this.enqueue(() => {
      const oldJson = this.readJson(scope, key);
      const old = oldJson === undefined ? undefined : parseStored(oldJson);
      this.stmts().upsert.run(scope, key, text);
      const result = { old_value: old, new_value: value, old_json: oldJson ?? null };
      return { result, change: changeOf(scope, key, old, value) };
    });
  }

  delete(scope: string, key: string): Promise<JsonValue | undefined> {
    return this.enqueue(() => {
      const old = this.read(scope, key);
      if (old === undefined) return { result: undefined };
      this.stmts().remove.run(scope, key);
      return { result: old, change: changeOf(scope, key, old, undefined) };
    });
  }

  update(scope: string, key: string, mutate: Mutation): Promise<UpdateResult> {
    return this.enqueue(() => {
      const old = this.read(scope, key);
      const next = mutateOutsideSql(mutate, old);
      if (next === undefined) return { result: { old_value: old, new_value: old, written: false } };
      this.stmts().upsert.run(scope, key, JSON.stringify(next));
      return { result: { old_value: old, new_value: next, written: true }, change: changeOf(scope, key, old, next) };
    });
  }

  async list(scope: string): Promise<StateEntry[]> {
    const rows = this.stmts().list.all(scope) as { key: string; value: string }[];
    return rows.map((row) => ({ key: row.key, value: parseStored(row.value) })).sort(byKey);
  }

  async listGroups(): Promise<string[]> {
    const rows = this.stmts().groups.all() as { scope: string }[];
    return rows.map((row) => row.scope).sort();
  }

  onChange(listener: ChangeListener): void {
    this.feed.set(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.flush(); // writes already accepted are committed (and answered) before the file closes
    this.closed = true;
    this.feed.clear();
    clearInterval(this.checkpointTimer);
    if (this.db !== undefined && this.failure === undefined) this.checkpoint();
    this.db?.close();
    this.db = undefined;
  }

  private read(scope: string, key: string): JsonValue | undefined {
    const text = this.readJson(scope, key);
    return text === undefined ? undefined : parseStored(text);
  }

  private readJson(scope: string, key: string): string | undefined {
    return (this.stmts().get.get(scope, key) as { value: string } | undefined)?.value;
  }

  private enqueue<T>(run: PendingWrite['run']): Promise<T> {
    if (this.closed || this.db === undefined) return Promise.reject(closedError());
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run, resolve: resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits every queued write in one transaction, then answers them and emits their changes in order. */
  private flush(): void {
    this.flushScheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0 || this.db === undefined) return;
    const outcomes: ({ ok: true; result: unknown; change?: StateChange } | { ok: false; err: unknown })[] = [];
    try {
      this.db.transaction(() => {
        for (const write of batch) outcomes.push(runOne(write));
      })();
    } catch (err) {
      this.fail(err);
      for (const write of batch) write.reject(this.failure ?? err);
      return;
    }
    batch.forEach((write, index) => {
      const outcome = outcomes[index];
      if (outcome === undefined)
        return write.reject(new StoreError(StateErrorCode.StoreIoError, 'write lost in batch'));
      if (!outcome.ok) return write.reject(outcome.err);
      if (outcome.change !== undefined) this.feed.emit(outcome.change);
      write.resolve(outcome.result);
    });
  }

  private fail(err: unknown): void {
    const code = (err as { code?: unknown }).code;
    const message = `writing the state file ${this.options.filePath} failed (${String(err)})`;
    if (typeof code === 'string' && /^SQLITE_(IOERR|FULL|CORRUPT|NOTADB|CANTOPEN)/.test(code)) {
      this.failure = new StoreError(
        StateErrorCode.StoreFailed,
        `${message}; restart svc-state once the disk is fixed`,
        {
          cause: err,
        },
      );
      this.options.logger?.error({ err }, 'state file failed; refusing further writes until restart');
    }
  }

  private checkpoint(): void {
    try {
      this.db?.pragma('wal_checkpoint(TRUNCATE)');
    } catch (err) {
      this.options.logger?.warn({ err }, 'state file checkpoint failed (data is safe in the WAL)');
    }
  }

  private stmts(): NonNullable<FileAdapter['statements']> {
    if (this.closed || this.statements === undefined) throw closedError();
    return this.statements;
  }
}

/** `file_path` is the database file; when it names an existing directory, the file `state.sqlite` inside it. */
export function databasePath(filePath: string): string {
  const isDirectory = statSync(filePath, { throwIfNoEntry: false })?.isDirectory() ?? false;
  return isDirectory ? join(filePath, 'state.sqlite') : filePath;
}

function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** An input error thrown by `mutate` marks this write as failed; an SQL error propagates and aborts the batch. */
class MutationFailed extends Error {
  constructor(readonly err: unknown) {
    super('the update function failed');
  }
}

function mutateOutsideSql(mutate: Mutation, old: JsonValue | undefined): JsonValue | undefined {
  try {
    return mutate(old);
  } catch (err) {
    throw new MutationFailed(err);
  }
}

function runOne(
  write: PendingWrite,
): { ok: true; result: unknown; change?: StateChange } | { ok: false; err: unknown } {
  try {
    const { result, change } = write.run();
    return change === undefined ? { ok: true, result } : { ok: true, result, change };
  } catch (err) {
    if (err instanceof MutationFailed) return { ok: false, err: err.err };
    throw err;
  }
}
