/**
 * The builtin queue's file store: SQLite in WAL mode with `synchronous=FULL`, so a commit is on disk (WAL fsynced)
 * before its promise resolves. Writes issued in the same event-loop turn are grouped into one transaction (group
 * commit): one fsync acknowledges many enqueues. After the first failed commit the store refuses every further
 * write until it is reopened, because after a failed fsync the state of the file is unknown.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { JobPatch, JobRow, JobState, JobStore } from './builtin-store.js';
import type { ErrorInfo } from './types.js';

type Op =
  { kind: 'insert'; row: JobRow } | { kind: 'update'; id: string; patch: JobPatch } | { kind: 'remove'; id: string };

interface Statements {
  insert: Database.Statement;
  update: Database.Statement;
  remove: Database.Statement;
}

interface Waiter {
  resolve(): void;
  reject(err: Error): void;
}

const SCHEMA = `CREATE TABLE IF NOT EXISTS jobs (
  id TEXT PRIMARY KEY, queue TEXT NOT NULL, seq INTEGER NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL,
  run_at INTEGER NOT NULL, payload TEXT NOT NULL, last_error TEXT, enqueued_at INTEGER NOT NULL, failed_at INTEGER NOT NULL)`;

export class StoreFailedError extends Error {
  readonly code = 'queue_store_failed';
}

export class StoreLockedError extends Error {
  readonly code = 'queue_store_locked';
  constructor(file: string) {
    super(
      `${file} is in use by another svc-queue process; give each process its own file_path ` +
        '(or share work through the KvserverAdapter or BrokerAdapter)',
    );
  }
}

export class FileJobStore implements JobStore {
  private readonly db: Database.Database;
  private ops: Op[] = [];
  private waiters: Waiter[] = [];
  private scheduled = false;
  private failed: Error | null = null;
  private closed = false;
  private readonly checkpointTimer: NodeJS.Timeout;
  private readonly stmts: Statements;

  /** `dir` is the `file_path` directory; the database is `<dir>/queue.db`. */
  constructor(dir: string, checkpointMs: number) {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'queue.db');
    this.db = new Database(file, { timeout: 0 });
    // One process owns the file: a second svc-queue on the same file_path would run every job twice. The exclusive
    // lock is taken by the first write below and held until close (and the OS drops it if the process dies).
    this.db.pragma('locking_mode = EXCLUSIVE');
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = FULL');
      this.db.exec('BEGIN EXCLUSIVE; COMMIT;');
    } catch (err) {
      this.db.close();
      const code = (err as { code?: string }).code;
      if (code === 'SQLITE_BUSY') throw new StoreLockedError(file);
      if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') throw corrupt(file, (err as Error).message);
      throw err;
    }
    this.db.exec(SCHEMA);
    this.verify(file);
    syncDir(dir); // the database and WAL files just created must survive a crash as directory entries too
    this.stmts = {
      insert: this.db.prepare(
        'INSERT OR IGNORE INTO jobs (id, queue, seq, state, attempts, run_at, payload, last_error, enqueued_at, failed_at) VALUES (?,?,?,?,?,?,?,?,?,?)',
      ),
      update: this.db.prepare('UPDATE jobs SET state=?, attempts=?, run_at=?, last_error=?, failed_at=? WHERE id=?'),
      remove: this.db.prepare('DELETE FROM jobs WHERE id=?'),
    };
    this.checkpointTimer = setInterval(() => this.checkpoint(), Math.max(100, checkpointMs));
    this.checkpointTimer.unref();
  }

  /** Refuses a damaged file instead of trusting it (and silently losing or replaying jobs). */
  private verify(file: string): void {
    const result = this.db.pragma('quick_check', { simple: true });
    if (result === 'ok') return;
    this.db.close();
    throw corrupt(file, String(result));
  }

  load(): Promise<JobRow[]> {
    const rows = this.db.prepare('SELECT * FROM jobs ORDER BY seq').all() as Record<string, unknown>[];
    return Promise.resolve(rows.map(fromSql));
  }

  insert(row: JobRow): Promise<void> {
    return this.push({ kind: 'insert', row });
  }
  update(id: string, patch: JobPatch): Promise<void> {
    return this.push({ kind: 'update', id, patch });
  }
  remove(id: string): Promise<void> {
    return this.push({ kind: 'remove', id });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.checkpointTimer);
    this.flush();
    this.checkpoint();
    this.db.close();
  }

  private push(op: Op): Promise<void> {
    if (this.failed) return Promise.reject(new StoreFailedError(`queue store refuses writes: ${this.failed.message}`));
    if (this.closed) return Promise.reject(new StoreFailedError('queue store is closed'));
    this.ops.push(op);
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const ops = this.ops;
    const waiters = this.waiters;
    this.ops = [];
    this.waiters = [];
    if (ops.length === 0) return;
    try {
      const s = this.stmts;
      this.db.transaction(() => {
        for (const op of ops) apply(s, op);
      })();
    } catch (err) {
      this.failed = err instanceof Error ? err : new Error(String(err));
      const e = new StoreFailedError(`queue store write failed: ${this.failed.message}`);
      for (const w of waiters) w.reject(e);
      return;
    }
    for (const w of waiters) w.resolve();
  }

  private checkpoint(): void {
    if (this.failed || !this.db.open) return;
    try {
      this.db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // A failed checkpoint leaves the WAL in place; the data is still durable there.
    }
  }
}

function corrupt(file: string, detail: string): Error {
  const message = `${file} is damaged (${detail}); move it aside and restore a copy, or start with an empty directory`;
  return Object.assign(new Error(message), { code: 'queue_store_failed' });
}

function syncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function apply(s: Statements, op: Op): void {
  if (op.kind === 'insert') {
    const r = op.row;
    const payload = JSON.stringify({
      function_id: r.function_id,
      data: r.data,
      traceparent: r.traceparent,
      baggage: r.baggage,
      condition_function_id: r.condition_function_id,
    });
    const err = r.lastError ? JSON.stringify(r.lastError) : null;
    s.insert.run(r.id, r.queue, r.seq, r.state, r.attempts, r.runAt, payload, err, r.enqueuedAt, r.failedAt);
  } else if (op.kind === 'update') {
    const p = op.patch;
    const err = p.lastError ? JSON.stringify(p.lastError) : null;
    s.update.run(p.state, p.attempts, p.runAt, err, p.failedAt, op.id);
  } else {
    s.remove.run(op.id);
  }
}

function fromSql(r: Record<string, unknown>): JobRow {
  const payload = parseObject(r.payload);
  return {
    id: String(r.id),
    queue: String(r.queue),
    seq: Number(r.seq),
    state: String(r.state) as JobState,
    attempts: Number(r.attempts),
    runAt: Number(r.run_at),
    function_id: String(payload.function_id ?? ''),
    data: payload.data ?? null,
    traceparent: typeof payload.traceparent === 'string' ? payload.traceparent : null,
    baggage: typeof payload.baggage === 'string' ? payload.baggage : null,
    condition_function_id: typeof payload.condition_function_id === 'string' ? payload.condition_function_id : null,
    lastError: r.last_error ? (parseObject(r.last_error) as unknown as ErrorInfo) : null,
    enqueuedAt: Number(r.enqueued_at),
    failedAt: Number(r.failed_at),
  };
}

function parseObject(text: unknown): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(String(text));
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
