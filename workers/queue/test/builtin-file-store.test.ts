/**
 * The builtin adapter's file store beyond the conformance suite: what its group commit promises. An enqueue is
 * acknowledged once durable; the changes nobody waits for (a job started, completed) are written without their own
 * fsync but still survive the process being killed; a handler still running when the grace period of a shutdown
 * ends sees its signal fire, and its job runs again after a restart.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { BuiltinQueueAdapter, type BuiltinOptions } from '../src/adapters/builtin.js';
import { FileJobStore, HELD_PAYLOAD_CHARS } from '../src/adapters/builtin-file-store.js';
import type { JobRow } from '../src/adapters/builtin-store.js';
import { waitFor } from './backends.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-queue-file-store-'));
  dirs.push(d);
  return d;
}

const open = (dir: string, extra: Partial<BuiltinOptions> = {}) =>
  new BuiltinQueueAdapter({
    max_attempts: 3,
    backoff_ms: 50,
    concurrency: 10,
    poll_interval_ms: 100,
    mode: 'concurrent',
    store_method: 'file_based',
    file_path: dir,
    save_interval_ms: 60_000,
    ...extra,
  });

/**
 * A child process (the built svc-queue, as in production) that enqueues `jobs` jobs, runs them all, reports how many were acknowledged, then kills itself
 * (SIGKILL: no close, no checkpoint) once the completions have had one event-loop turn to be written.
 */
const CHILD = `
import { BuiltinQueueAdapter } from ${JSON.stringify(path.resolve(HERE, '../dist/index.js'))};
const [dir, jobs] = [process.argv[2], Number(process.argv[3])];
const a = new BuiltinQueueAdapter({ max_attempts: 3, backoff_ms: 50, concurrency: 10, poll_interval_ms: 100,
  mode: 'concurrent', store_method: 'file_based', file_path: dir, save_interval_ms: 60000 });
await a.start();
let done = 0;
await a.consume('k', async () => void done++);
await Promise.all(Array.from({ length: jobs }, (_, i) => a.enqueue('k', { id: 'j' + i, function_id: 'f', data: { i } })));
while (done < jobs) await new Promise((r) => setTimeout(r, 5));
await new Promise((r) => setImmediate(r));
await new Promise((r) => setImmediate(r));
process.stdout.write('acked ' + jobs + '\\n');
process.kill(process.pid, 'SIGKILL');
`;

describe('builtin file store', () => {
  it('says at start-up what it recovered, and first that it reads a large file', async () => {
    const dir = tempDir();
    const lines: string[] = [];
    const withLines = (largeStoreBytes?: number) =>
      open(dir, { largeStoreBytes, onStartup: (_fields, message) => lines.push(message) });
    const first = withLines();
    await first.start();
    expect(lines).toEqual([]); // a new, small file: nothing to say
    await first.enqueue('mail', { function_id: 'f', data: 1 });
    await first.enqueue('mail', { function_id: 'f', data: 2 });
    await first.enqueue('sms', { function_id: 'f', data: 3 });
    await first.close();

    const second = withLines(1);
    await second.start();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^queue store: checking and loading .*queue\.db \(\d+ MiB\); svc-queue is ready once/);
    expect(lines[1]).toMatch(
      /^queue store: 3 jobs recovered in 2 queues \(waiting 3, delayed 0, dead letters 0\) in \d+ ms$/,
    );
    await second.close();
  });

  it('completions written without their own fsync survive the process being killed', async () => {
    const dir = tempDir();
    const script = path.join(dir, 'child.mjs');
    fs.writeFileSync(script, CHILD);
    const out = await new Promise<string>((resolve) => {
      const child = spawn(process.execPath, [script, path.join(dir, 'q'), '200'], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let text = '';
      child.stdout.on('data', (c: Buffer) => (text += c.toString()));
      child.on('exit', () => resolve(text));
    });
    expect(out).toContain('acked 200');
    const a = open(path.join(dir, 'q'));
    await a.start();
    // every job completed before the kill: none waits to run again, and all 200 are counted
    expect(await a.topicStats('k')).toMatchObject({ waiting: 0, active: 0, delayed: 0, dead: 0, completed: 200 });
    await a.close();
  }, 30_000);

  it('refuses a job whose data cannot be written alone, and keeps accepting and running the others', async () => {
    const a = open(path.join(tempDir(), 'q'));
    await a.start();
    const ran: unknown[] = [];
    await a.consume('k', async (job) => void ran.push(job.data));
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep]; // JSON.stringify overflows its stack on it
    const same = Promise.all(
      [
        a.enqueue('k', { function_id: 'f', data: { n: 1 } }),
        a.enqueue('k', { function_id: 'f', data: deep }),
        a.enqueue('k', { function_id: 'f', data: { n: 2 } }),
      ].map((p) =>
        p.then(
          () => 'ok',
          (err: Error & { code?: string }) => `${err.code} | ${err.message}`,
        ),
      ),
    );
    const outcomes = await same;
    expect(outcomes[0]).toBe('ok');
    expect(outcomes[1]).toBe(
      "invalid_arguments | invalid_arguments: the job's data cannot be written as JSON: Maximum call stack size exceeded",
    );
    expect(outcomes[2]).toBe('ok');
    await a.enqueue('k', { function_id: 'f', data: { n: 3 } }); // the store still takes writes
    await waitFor(() => ran.length === 3, 5000);
    expect(ran).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    await a.close();
  });

  it('a handler still running at the end of the grace period is aborted, and its job runs again after a restart', async () => {
    const dir = tempDir();
    const a = open(dir);
    await a.start();
    let signal: AbortSignal | undefined;
    await a.consume('slow', (_job, s) => {
      signal = s;
      return new Promise<void>(() => undefined); // never finishes
    });
    await a.enqueue('slow', { id: 'stuck', function_id: 'f', data: null });
    await waitFor(() => signal !== undefined, 2000, 'the handler to start');
    await a.close(50);
    expect(signal?.aborted).toBe(true);

    const b = open(dir);
    await b.start();
    const ran: string[] = [];
    await b.consume('slow', async (job) => void ran.push(job.id));
    await waitFor(() => ran.length === 1, 2000, 'the job to run again');
    expect(ran).toEqual(['stuck']);
    await b.close();
  });

  it('keeps a job per queue when two queues are given the same id, across a restart', async () => {
    const dir = tempDir();
    const a = open(dir);
    await a.start();
    await a.enqueue('left', { id: 'same', function_id: 'f', data: { side: 'left' } });
    await a.enqueue('right', { id: 'same', function_id: 'f', data: { side: 'right' } });
    await a.close();

    const b = open(dir);
    await b.start();
    const seen: unknown[] = [];
    await b.consume('left', async (job) => void seen.push(job.data));
    await b.consume('right', async (job) => void seen.push(job.data));
    await waitFor(() => seen.length === 2, 2000, 'both jobs');
    expect(seen).toEqual(expect.arrayContaining([{ side: 'left' }, { side: 'right' }]));
    await b.close();
  });

  it('opens a file written with id-keyed rows: its jobs run in their order, its totals are kept', async () => {
    const dir = tempDir();
    const db = new Database(path.join(dir, 'queue.db'));
    db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE jobs (
      id TEXT PRIMARY KEY, queue TEXT NOT NULL, seq INTEGER NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL,
      run_at INTEGER NOT NULL, payload TEXT NOT NULL, last_error TEXT, enqueued_at INTEGER NOT NULL, failed_at INTEGER NOT NULL);
      CREATE TABLE totals (queue TEXT PRIMARY KEY, completed INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0);
      INSERT INTO totals VALUES ('old', 5, 1);`);
    const insert = db.prepare('INSERT INTO jobs VALUES (?,?,?,?,?,?,?,?,?,?)');
    const payload = (i: number) => JSON.stringify({ function_id: 'f', data: { i } });
    // ids sort differently from their order: the order is the seq
    for (const [id, seq] of [
      ['c', 3],
      ['a', 7],
      ['b', 12],
    ] as const) {
      insert.run(id, 'old', seq, 'waiting', 0, 0, payload(seq), null, Date.now(), 0);
    }
    insert.run('d', 'old', 20, 'dead', 3, 0, payload(20), JSON.stringify({ code: 'x', message: 'gone' }), 1, 2);
    db.close();

    const a = open(dir);
    await a.start();
    expect(await a.topicStats('old')).toMatchObject({ waiting: 3, dead: 1, completed: 5, failed: 1 });
    const ran: string[] = [];
    await a.consume('old', async (job) => void ran.push(job.id));
    await waitFor(() => ran.length === 3, 2000, 'the old jobs');
    expect(ran).toEqual(['c', 'a', 'b']);
    // a new job goes after the old ones, and survives a restart like any other
    await a.enqueue('old', { id: 'e', function_id: 'f', data: null });
    await waitFor(() => ran.length === 4, 2000, 'the new job');
    await a.enqueue('later', { id: 'f', function_id: 'f', data: null });
    await a.close();

    const b = open(dir);
    await b.start();
    expect(await b.topicStats('old')).toMatchObject({ waiting: 0, dead: 1, completed: 9, failed: 1 });
    expect((await b.listDeadLetters('old', 0, 10)).messages).toMatchObject([{ id: 'd', error: { message: 'gone' } }]);
    expect(await b.topicStats('later')).toMatchObject({ waiting: 1 });
    await b.close();
  });

  it("writes a turn's changes in order: after a restart each row is as its last change left it", async () => {
    const dir = tempDir();
    const store = new FileJobStore(dir, 60_000);
    const row = (seq: number): JobRow => ({
      id: `j${seq}`,
      queue: seq === 7 ? 'other' : 'q',
      seq,
      state: 'waiting',
      attempts: 0,
      runAt: 0,
      function_id: 'f',
      data: { seq },
      traceparent: null,
      baggage: null,
      condition_function_id: null,
      lastError: null,
      enqueuedAt: 1,
      failedAt: 0,
    });
    const [r1, r2, r3, r4, r5, r6, r7, r8, r9] = [
      row(1),
      row(2),
      row(3),
      row(4),
      row(5),
      row(6),
      row(7),
      row(8),
      row(9),
    ];
    await Promise.all([r1, r2, r3, r4, r5, r6, r7, r8, r9].map((r) => store.insert(r)));
    const writes: Promise<void>[] = [];
    const set = (r: JobRow, patch: Partial<JobRow>) => {
      Object.assign(r, patch);
      writes.push(store.update(r, undefined, false));
    };
    // one turn: 1–6 start, then 2 fails into a retry, 3 and 4 complete, 5 is dead-lettered; 8 is removed while
    // 7 (another queue, between them) starts; 9 is inserted and started in the same turn
    for (const r of [r1, r2, r3, r4, r5, r6]) set(r, { state: 'active', attempts: 1 });
    set(r2, { state: 'delayed', runAt: 5000, lastError: { code: 'x', message: 'retry me' } });
    writes.push(store.remove(r3, { queue: 'q', kind: 'completed' }, false));
    writes.push(store.remove(r4, { queue: 'q', kind: 'completed' }, false));
    set(r5, { state: 'dead', failedAt: 9, lastError: { code: 'y', message: 'gave up' } });
    set(r7, { state: 'active', attempts: 1 });
    writes.push(store.remove(r8, { queue: 'q', kind: 'completed' }, false));
    const r10 = row(10);
    writes.push(store.insert(r10));
    set(r10, { state: 'active', attempts: 1 });
    set(r9, { state: 'active', attempts: 2 });
    await Promise.all(writes);
    await store.close();

    const again = new FileJobStore(dir, 60_000);
    const loaded = await again.load();
    const view = loaded.map((r) => [r.seq, r.state, r.attempts, r.runAt, r.lastError?.message ?? null, r.failedAt]);
    expect(view).toEqual([
      [1, 'active', 1, 0, null, 0],
      [2, 'delayed', 1, 5000, 'retry me', 0],
      [5, 'dead', 1, 0, 'gave up', 9],
      [6, 'active', 1, 0, null, 0],
      [7, 'active', 1, 0, null, 0],
      [9, 'active', 2, 0, null, 0],
      [10, 'active', 1, 0, null, 0],
    ]);
    expect((await again.loadTotals()).get('q')).toEqual({ completed: 3, failed: 0 });
    await again.close();
  });

  it('keeps a bounded amount of job data in memory; the rest is read back from the file when a job runs', async () => {
    const store = new FileJobStore(tempDir(), 60_000, 1000);
    const rows = Array.from({ length: 10 }, (_, i): JobRow => ({
      id: `j${i}`,
      queue: 'q',
      seq: i + 1,
      state: 'waiting',
      attempts: 0,
      runAt: 0,
      function_id: 'f',
      data: { i, text: 'x'.repeat(200) },
      traceparent: null,
      baggage: null,
      condition_function_id: null,
      lastError: null,
      enqueuedAt: 0,
      failedAt: 0,
    }));
    await Promise.all(rows.map((r) => store.insert(r)));
    const held = rows.filter((r) => r.data !== undefined).length;
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThan(rows.length); // before, every row kept its data: a backlog could fill the heap
    rows.forEach((r, i) => expect(store.data(r)).toEqual({ i, text: 'x'.repeat(200) }));
    await store.remove(rows[0]!); // a held row that leaves makes room for the next one
    const next = { ...rows[9]!, id: 'j10', seq: 11, data: { i: 10 } };
    await store.insert(next);
    expect(next.data).toEqual({ i: 10 });
    await store.close();
  });

  it('runs a backlog larger than the data it holds in memory, each job with its data, across a restart', async () => {
    const dir = tempDir();
    const a = open(dir);
    await a.start();
    const blob = 'b'.repeat(1024 * 1024);
    const jobs = Math.ceil(HELD_PAYLOAD_CHARS / blob.length) + 6; // past the bound: the last ones are in the file only
    for (let i = 0; i < jobs; i++) await a.enqueue('backlog', { id: `b${i}`, function_id: 'f', data: { i, blob } });
    await a.enqueue('failing', { id: 'dead', function_id: 'f', data: { i: -1, blob } });
    await a.close();

    const b = open(dir);
    await b.start();
    const seen = new Map<number, number>();
    await b.consume('backlog', async (job) => {
      const data = job.data as { i: number; blob: string };
      seen.set(data.i, data.blob.length);
    });
    await b.consume('failing', () => Promise.reject(new Error('always')));
    await waitFor(() => seen.size === jobs, 20_000, 'every job of the backlog');
    expect([...seen.values()].every((n) => n === blob.length)).toBe(true);
    await waitFor(async () => (await b.topicStats('failing')).dead === 1, 5000, 'the dead letter');
    const dead = await b.listDeadLetters('failing', 0, 10);
    expect((dead.messages[0]?.data as { i: number; blob: string }).blob.length).toBe(blob.length);
    await b.close();
  });
});
