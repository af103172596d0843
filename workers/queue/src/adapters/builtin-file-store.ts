/**
 * The builtin queue's file store: SQLite in WAL mode. Writes issued in the same event-loop turn are grouped into
 * one transaction, committed at once (into the WAL, without a sync: `synchronous=NORMAL`); a transaction that
 * holds a write someone waits for (an enqueue) is then made durable by an fsync of the WAL file on libuv's thread
 * pool, and its promises resolve only after that fsync (group commit: one fsync acknowledges every enqueue of the
 * turns it covers, and the event loop keeps dispatching jobs while the disk works). A transaction that carries only
 * background changes (a job started, completed, retried: losing one to a power cut only replays a job, which
 * at-least-once delivery allows) resolves at commit: it is in the WAL, safe from a process crash, and the next
 * fsync or checkpoint covers it. After the first failed commit or fsync the store refuses every further write
 * until it is reopened, because after a failed fsync the state of the file is unknown.
 *
 * The per-queue totals (completed, failed) live in the `totals` table and are added to in the same transaction
 * as the job's removal or move to dead letters, so they survive a restart and agree with the jobs after a crash
 * (a job replayed after a crash was not counted the first time).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { JobRow, JobStore, Outcome, Totals } from './builtin-store.js';
import { QueueErrorCode } from '../error-codes.js';
import { badInput } from '../input.js';
import { fromSql, LOAD_JOBS, parseObject, payloadText } from './builtin-file-rows.js';

/** The row's fields an update writes, as they were when it was asked for. */
type Patch = Pick<JobRow, 'seq' | 'state' | 'attempts' | 'runAt' | 'lastError' | 'failedAt'>;

type Op =
  | { kind: 'insert'; row: JobRow; payload: string }
  | { kind: 'update'; patch: Patch; outcome?: Outcome | undefined }
  | { kind: 'remove'; seq: number; outcome?: Outcome | undefined };

interface Statements {
  insert: Database.Statement;
  payload: Database.Statement;
  update: Database.Statement;
  remove: Database.Statement;
  addTotals: Database.Statement;
}

interface Waiter {
  resolve(): void;
  reject(err: Error): void;
}

/**
 * A job's row is keyed by its `seq` (the table's rowid), with no other index: an enqueue appends to the end of the
 * table and a job's later changes touch the few pages its neighbours in the queue share, so a transaction writes a
 * handful of pages whatever its number of jobs (an index on the random job ids dirtied one more page per job and
 * change). Ids need no index: the adapter keeps every stored job in memory and finds them there.
 */
const JOBS_COLUMNS = `seq INTEGER PRIMARY KEY, id TEXT NOT NULL, queue TEXT NOT NULL, state TEXT NOT NULL,
  attempts INTEGER NOT NULL, run_at INTEGER NOT NULL, payload TEXT NOT NULL, last_error TEXT, enqueued_at INTEGER NOT NULL,
  failed_at INTEGER NOT NULL`;

const SCHEMA = `CREATE TABLE IF NOT EXISTS jobs (${JOBS_COLUMNS});
CREATE TABLE IF NOT EXISTS totals (
  queue TEXT PRIMARY KEY, completed INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0)`;

/**
 * Files written before the rows were keyed by `seq` have `id TEXT PRIMARY KEY`: their jobs move to the current
 * table in one transaction (renumbered in their order, which is all `seq` is used for).
 */
const MIGRATE_ID_KEYED = `CREATE TABLE jobs_by_seq (${JOBS_COLUMNS});
INSERT INTO jobs_by_seq (seq, id, queue, state, attempts, run_at, payload, last_error, enqueued_at, failed_at)
  SELECT row_number() OVER (ORDER BY seq, rowid), id, queue, state, attempts, run_at, payload, last_error,
    enqueued_at, failed_at FROM jobs;
DROP TABLE jobs;
ALTER TABLE jobs_by_seq RENAME TO jobs`;

/** The database file of a `file_path` directory. */
export const storeFile = (dir: string): string => path.join(dir, 'queue.db');

/**
 * How much job data (in characters of its stored text) the rows in memory may hold. Beyond it a new job's data is
 * in the file only and is read back when the job runs (and when its dead letter is listed): a backlog is bounded by
 * the disk, not by the heap. Without this bound, 1,000 waiting jobs of 4 MiB ran svc-queue out of heap, and, the
 * jobs being stored, again at every restart: no queue could run until the file was moved aside.
 */
export const HELD_PAYLOAD_CHARS = 64 * 1024 * 1024;

export class StoreFailedError extends Error {
  readonly code = QueueErrorCode.QueueStoreFailed;
}

export class StoreLockedError extends Error {
  readonly code = QueueErrorCode.QueueStoreLocked;
  constructor(file: string) {
    super(
      `${file} is in use by another svc-queue process; give each process its own file_path ` +
        '(or share work through the KvserverAdapter or BrokerAdapter)',
    );
  }
}

export class FileJobStore implements JobStore {
  readonly immediate = false;
  private readonly db: Database.Database;
  private ops: Op[] = [];
  private waiters: Waiter[] = [];
  /** The one promise every background change of the pending transaction shares. */
  private background: { promise: Promise<void>; waiter: Waiter } | null = null;
  /** Whether the pending transaction holds a change someone waits to be durable. */
  private durable = false;
  /** Committed durable writes waiting for the next fsync of the WAL. */
  private unsynced: Waiter[] = [];
  /** The fsync running now, if any. */
  private syncing: Promise<void> | null = null;
  /** The WAL file, for fsync (SQLite keeps this file while the connection is open: the lock mode is exclusive). */
  private readonly walFd: number;
  private scheduled = false;
  /** Characters of stored text the rows of stored jobs hold in memory with their data (`HELD_PAYLOAD_CHARS`). */
  private held = 0;
  private failed: Error | null = null;
  private closed = false;
  private readonly checkpointTimer: NodeJS.Timeout;
  private readonly stmts: Statements;
  /** One transaction of writes (built once: better-sqlite3 compiles a wrapper per `transaction()` call). */
  private readonly write: (ops: Op[]) => void;

  /**
   * `dir` is the `file_path` directory; the database is `<dir>/queue.db`. `heldChars`: how much job data rows may
   * hold in memory (`HELD_PAYLOAD_CHARS`).
   */
  constructor(
    dir: string,
    checkpointMs: number,
    private readonly heldChars = HELD_PAYLOAD_CHARS,
  ) {
    fs.mkdirSync(dir, { recursive: true });
    const file = storeFile(dir);
    this.db = new Database(file, { timeout: 0 });
    // One process owns the file: a second svc-queue on the same file_path would run every job twice. The exclusive
    // lock is taken by the first write below and held until close (and the OS drops it if the process dies).
    this.db.pragma('locking_mode = EXCLUSIVE');
    try {
      this.db.pragma('journal_mode = WAL');
      // commits are not synced by SQLite: a durable commit is followed by our own fsync of the WAL (see above)
      this.db.pragma('synchronous = NORMAL');
      this.db.exec('BEGIN EXCLUSIVE; COMMIT;');
    } catch (err) {
      this.db.close();
      const code = (err as { code?: string }).code;
      if (code === 'SQLITE_BUSY') throw new StoreLockedError(file);
      if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') throw corrupt(file, (err as Error).message);
      throw err;
    }
    this.verify(file);
    this.migrate();
    this.db.exec(SCHEMA);
    this.walFd = fs.openSync(`${file}-wal`, 'r');
    fs.fsyncSync(this.walFd);
    syncDir(dir); // the database and WAL files just created must survive a crash as directory entries too
    this.stmts = {
      insert: this.db.prepare(
        'INSERT INTO jobs (seq, id, queue, state, attempts, run_at, payload, last_error, enqueued_at, failed_at) VALUES (?,?,?,?,?,?,?,?,?,?)',
      ),
      update: this.db.prepare('UPDATE jobs SET state=?, attempts=?, run_at=?, last_error=?, failed_at=? WHERE seq=?'),
      remove: this.db.prepare('DELETE FROM jobs WHERE seq=?'),
      payload: this.db.prepare('SELECT payload FROM jobs WHERE seq=?').pluck(),
      addTotals: this.db.prepare(
        'INSERT INTO totals (queue, completed, failed) VALUES (?,?,?) ' +
          'ON CONFLICT(queue) DO UPDATE SET completed = completed + excluded.completed, failed = failed + excluded.failed',
      ),
    };
    const s = this.stmts;
    this.write = this.db.transaction((ops: Op[]) => {
      const totals = new Map<string, Totals>();
      for (const op of ops) apply(s, op, totals);
      for (const [queue, t] of totals) s.addTotals.run(queue, t.completed, t.failed);
    });
    this.checkpointTimer = setInterval(() => this.checkpoint(), Math.max(100, checkpointMs));
    this.checkpointTimer.unref();
  }

  /** Moves the jobs of a file written with id-keyed rows to the seq-keyed table (see MIGRATE_ID_KEYED). */
  private migrate(): void {
    const columns = this.db.pragma('table_info(jobs)') as { name: string; pk: number }[];
    if (!columns.some((c) => c.name === 'id' && c.pk === 1)) return;
    this.db.transaction(() => this.db.exec(MIGRATE_ID_KEYED))();
  }

  /** Refuses a damaged file instead of trusting it (and silently losing or replaying jobs). */
  private verify(file: string): void {
    const result = this.db.pragma('quick_check', { simple: true });
    if (result === 'ok') return;
    this.db.close();
    throw corrupt(file, String(result));
  }

  /** Every stored job, without its data (read back when the job runs: see `data`). */
  load(): Promise<JobRow[]> {
    const rows = this.db.prepare(LOAD_JOBS).all() as Record<string, unknown>[];
    return Promise.resolve(rows.map(fromSql));
  }

  data(row: JobRow): unknown {
    if (row.data !== undefined) return row.data;
    const payload = this.stmts.payload.get(row.seq);
    if (payload === undefined) throw new StoreFailedError(`job ${row.id} of queue ${row.queue} is not in the store`);
    return parseObject(payload).data ?? null;
  }

  loadTotals(): Promise<Map<string, Totals>> {
    const rows = this.db.prepare('SELECT queue, completed, failed FROM totals').all() as Record<string, unknown>[];
    const totals = new Map<string, Totals>();
    for (const r of rows) totals.set(String(r.queue), { completed: Number(r.completed), failed: Number(r.failed) });
    return Promise.resolve(totals);
  }

  insert(row: JobRow): Promise<void> {
    // Written to text here, not in the batch's transaction: a job whose data cannot be written fails alone, and
    // never as a failed commit that would make the store refuse every later write.
    let payload: string;
    try {
      payload = payloadText(row);
    } catch (err) {
      return Promise.reject(badInput(`the job's data cannot be written as JSON: ${(err as Error).message}`));
    }
    if (this.held + payload.length <= this.heldChars) {
      row.held = payload.length;
      this.held += payload.length;
    } else {
      row.data = undefined; // from now on in the file only, read back when the job runs
    }
    return this.push({ kind: 'insert', row, payload }, true);
  }
  update(row: JobRow, outcome?: Outcome, durable = true): Promise<void> {
    const patch: Patch = {
      seq: row.seq,
      state: row.state,
      attempts: row.attempts,
      runAt: row.runAt,
      lastError: row.lastError,
      failedAt: row.failedAt,
    };
    return this.push({ kind: 'update', patch, outcome }, durable);
  }
  remove(row: JobRow, outcome?: Outcome, durable = true): Promise<void> {
    this.held -= row.held ?? 0;
    row.held = 0;
    return this.push({ kind: 'remove', seq: row.seq, outcome }, durable);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.checkpointTimer);
    this.flush();
    while (this.syncing) await this.syncing;
    this.checkpoint();
    this.db.close();
    fs.closeSync(this.walFd);
  }

  private push(op: Op, durable: boolean): Promise<void> {
    if (this.failed) return Promise.reject(new StoreFailedError(`queue store refuses writes: ${this.failed.message}`));
    if (this.closed) return Promise.reject(new StoreFailedError('queue store is closed'));
    this.ops.push(op);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    if (!durable) {
      if (!this.background) {
        let waiter!: Waiter;
        const promise = new Promise<void>((resolve, reject) => (waiter = { resolve, reject }));
        this.background = { promise, waiter };
        this.waiters.push(waiter);
      }
      return this.background.promise;
    }
    this.durable = true;
    return new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private flush(): void {
    this.scheduled = false;
    const ops = this.ops;
    const waiters = this.waiters;
    const durable = this.durable;
    this.ops = [];
    this.waiters = [];
    this.background = null;
    this.durable = false;
    if (ops.length === 0) return;
    try {
      this.write(ops);
    } catch (err) {
      this.fail(err, waiters);
      return;
    }
    if (!durable) {
      for (const w of waiters) w.resolve();
      return;
    }
    for (const w of waiters) this.unsynced.push(w);
    if (this.syncing === null) this.sync();
  }

  /** One fsync of the WAL for every durable commit so far; the commits made meanwhile get the next one. */
  private sync(): void {
    const waiters = this.unsynced;
    this.unsynced = [];
    this.syncing = new Promise<void>((done) => {
      fs.fsync(this.walFd, (err) => {
        this.syncing = null;
        done();
        if (err) {
          this.fail(err, waiters);
          return;
        }
        for (const w of waiters) w.resolve();
        if (this.unsynced.length > 0 && this.failed === null) this.sync();
      });
    });
  }

  /** The first failed commit or fsync: these waiters and every later write are refused. */
  private fail(err: unknown, waiters: Waiter[]): void {
    this.failed ??= err instanceof Error ? err : new Error(String(err));
    const e = new StoreFailedError(`queue store write failed: ${this.failed.message}`);
    for (const w of waiters) w.reject(e);
    const unsynced = this.unsynced;
    this.unsynced = [];
    for (const w of unsynced) w.reject(e);
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
  return Object.assign(new Error(message), { code: QueueErrorCode.QueueStoreFailed });
}

function syncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Runs one write; the totals it adds to are summed per queue and written once per transaction. */
function apply(s: Statements, op: Op, totals: Map<string, Totals>): void {
  if (op.kind !== 'insert' && op.outcome) {
    const { queue, kind } = op.outcome;
    const t = totals.get(queue) ?? { completed: 0, failed: 0 };
    t[kind] += 1;
    totals.set(queue, t);
  }
  if (op.kind === 'insert') {
    const r = op.row;
    const err = r.lastError ? JSON.stringify(r.lastError) : null;
    s.insert.run(r.seq, r.id, r.queue, r.state, r.attempts, r.runAt, op.payload, err, r.enqueuedAt, r.failedAt);
  } else if (op.kind === 'update') {
    const p = op.patch;
    const err = p.lastError ? JSON.stringify(p.lastError) : null;
    s.update.run(p.state, p.attempts, p.runAt, err, p.failedAt, p.seq);
  } else {
    s.remove.run(op.seq);
  }
}
