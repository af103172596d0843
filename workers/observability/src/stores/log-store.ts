/** Log records in memory: at most `logs_max_count`, none older than `logs_retention_seconds`. */
import { nanosToMs } from '../otlp/values.js';
import type { LogRecord } from '../otlp/records.js';
import { BoundedLog } from './bounded-log.js';

export class LogStore {
  private readonly log: BoundedLog<LogRecord>;

  constructor(maxCount: number, retentionSeconds: number) {
    this.log = new BoundedLog(maxCount, (r) => nanosToMs(r.timestamp_unix_nano), retentionSeconds * 1000);
  }

  get size(): number {
    return this.log.size;
  }

  get capacity(): number {
    return this.log.capacity;
  }

  add(record: LogRecord): void {
    this.log.push(record);
  }

  sweep(nowMs: number): number {
    return this.log.sweep(nowMs);
  }

  newest(): IterableIterator<LogRecord> {
    return this.log.newest();
  }

  clear(): number {
    return this.log.clear();
  }
}
