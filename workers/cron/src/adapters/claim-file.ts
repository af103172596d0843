/**
 * The KvCronAdapter's claim file: one SQLite database (better-sqlite3, WAL), the same storage svc-state's and
 * svc-stream's file stores use. A save replaces the claim table in one transaction, so a crash leaves either the
 * previous or the new set of claims, never a torn one. A file that is not such a database (an older JSON claim
 * file, or garbage) is set aside (renamed `.corrupt-<time>`) rather than trusted.
 */
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Logger } from 'pino';

export interface Claim {
  token: string;
  expiresAt: number;
}

const SCHEMA =
  'CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, token TEXT NOT NULL, expires_at INTEGER NOT NULL)';

export class ClaimFile {
  private db: Database.Database | undefined;

  constructor(
    private readonly file: string,
    private readonly logger: Logger,
  ) {}

  /** Opens (or creates) the file and returns the claims that are still valid at `now`. */
  open(now: number): Map<string, Claim> {
    mkdirSync(dirname(this.file), { recursive: true });
    try {
      return this.openDatabase(now);
    } catch (err) {
      if (!existsSync(this.file) || !isNotADatabase(err)) throw err;
      this.db?.close();
      const aside = `${this.file}.corrupt-${Date.now()}`;
      renameSync(this.file, aside);
      this.logger.warn(
        { file: this.file, aside },
        'cron lock file is not a lock database; set it aside, starting with no claims',
      );
      return this.openDatabase(now);
    }
  }

  /** Replaces the stored claims with `claims` (one transaction). */
  save(claims: ReadonlyMap<string, Claim>): void {
    const db = this.db;
    if (!db) return;
    const insert = db.prepare('INSERT INTO claims (key, token, expires_at) VALUES (?, ?, ?)');
    db.transaction(() => {
      db.prepare('DELETE FROM claims').run();
      for (const [key, claim] of claims) insert.run(key, claim.token, claim.expiresAt);
    })();
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
  }

  private openDatabase(now: number): Map<string, Claim> {
    this.db = new Database(this.file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.exec(SCHEMA);
    const rows = this.db.prepare('SELECT key, token, expires_at FROM claims WHERE expires_at > ?').all(now) as {
      key: string;
      token: string;
      expires_at: number;
    }[];
    return new Map(rows.map((r) => [r.key, { token: r.token, expiresAt: r.expires_at }]));
  }
}

function isNotADatabase(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT';
}
