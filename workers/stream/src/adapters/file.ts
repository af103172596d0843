import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { MemoryStreamAdapter, putItem } from './memory.js';
import { StreamErrorCode } from '../error-codes.js';

export interface FileAdapterOptions {
  /** The directory of the store (created when missing); the data is `<dir>/stream.sqlite`. */
  dir: string;
  /** How often changed items are written to disk. 0 writes every change before the call returns. */
  saveIntervalMs: number;
  /** `max_store_bytes` (the items are held in memory as well). */
  maxStoreBytes?: number;
  onFlushError?: (error: unknown) => void;
}

type Key = string; // JSON [stream, group, item]

/**
 * `KvStore` with `store_method: file_based`: the in-memory store, loaded from and saved to a SQLite file (WAL) in
 * the `file_path` directory. Changes are written in one transaction every `save_interval_ms` (so a crash loses at
 * most that window), or on every change when it is 0. One process per directory: the file is locked exclusively,
 * and a second process fails to start (several processes share streams through `KvserverAdapter`).
 * Owns the database handle and the flush timer; `close()` flushes what is pending, stops the timer and closes the
 * file (releasing the lock).
 */
export class FileStreamAdapter extends MemoryStreamAdapter {
  override readonly name = 'kv(file_based)';
  private db: Database.Database | undefined;
  private readonly dirty = new Map<Key, string | undefined>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: FileAdapterOptions) {
    super(options.maxStoreBytes);
  }

  override async start(): Promise<void> {
    mkdirSync(this.options.dir, { recursive: true });
    const file = join(this.options.dir, 'stream.sqlite');
    const db = new Database(file, { timeout: 0 });
    try {
      // Exclusive before WAL: the WAL then needs no shared memory, and the lock taken by the first write below is
      // held until close, so a second process sharing the directory fails here instead of diverging silently.
      db.pragma('locking_mode = EXCLUSIVE');
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.exec('BEGIN IMMEDIATE; COMMIT');
    } catch (error) {
      db.close();
      throw Object.assign(
        new Error(
          `stream file store ${file} is in use by another process (${(error as Error).message}); give each ` +
            'svc-stream its own file_path, or share streams with KvserverAdapter',
        ),
        { code: StreamErrorCode.StoreOpenFailed },
      );
    }
    db.exec(
      'CREATE TABLE IF NOT EXISTS stream_items (stream TEXT NOT NULL, grp TEXT NOT NULL, item TEXT NOT NULL, ' +
        'value TEXT NOT NULL, PRIMARY KEY (stream, grp, item)) WITHOUT ROWID',
    );
    const rows = db.prepare('SELECT stream, grp, item, value FROM stream_items').all() as Array<{
      stream: string;
      grp: string;
      item: string;
      value: string;
    }>;
    // all of it, even past max_store_bytes (a lower bound than the file was written with): nothing stored is dropped
    for (const row of rows) {
      putItem(this.items, row.stream, row.grp, row.item, row.value);
      this.held += row.item.length + row.value.length;
    }
    this.db = db;
    if (this.options.saveIntervalMs > 0) {
      this.timer = setInterval(() => this.flushSafely(), this.options.saveIntervalMs);
      this.timer.unref();
    }
  }

  protected override write(stream: string, group: string, item: string, raw: string | undefined): void {
    super.write(stream, group, item, raw);
    this.dirty.set(JSON.stringify([stream, group, item]), raw);
    if (this.options.saveIntervalMs === 0) this.flush();
  }

  /** Writes every pending change in one transaction. */
  flush(): void {
    const db = this.db;
    if (!db || this.dirty.size === 0) return;
    const upsert = db.prepare('INSERT OR REPLACE INTO stream_items (stream, grp, item, value) VALUES (?, ?, ?, ?)');
    const remove = db.prepare('DELETE FROM stream_items WHERE stream = ? AND grp = ? AND item = ?');
    const pending = [...this.dirty.entries()];
    db.transaction(() => {
      for (const [key, raw] of pending) {
        const [stream, group, item] = JSON.parse(key) as [string, string, string];
        if (raw === undefined) remove.run(stream, group, item);
        else upsert.run(stream, group, item, raw);
      }
    })();
    // Only forget what was written: a change made during the transaction is impossible (it is synchronous).
    for (const [key] of pending) this.dirty.delete(key);
  }

  private flushSafely(): void {
    try {
      this.flush();
    } catch (error) {
      this.options.onFlushError?.(error);
    }
  }

  override async close(): Promise<void> {
    if (this.closed) return;
    await super.close();
    if (this.timer) clearInterval(this.timer);
    try {
      this.flush();
    } finally {
      this.db?.close();
      this.db = undefined;
    }
  }
}
