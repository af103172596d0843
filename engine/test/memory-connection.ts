/** An in-memory `Connection` for driving the core in unit tests: records what the engine sends. */
import type { EngineToWorker } from '@svc/sdk';
import type { Connection } from '../src/core/connection.js';

export class MemoryConnection implements Connection {
  readonly sent: EngineToWorker[] = [];
  readonly kind = 'ws' as const;
  readonly sharesObjects = false;
  readonly features: ReadonlySet<string>;
  closed = false;

  constructor(features: string[] = []) {
    this.features = new Set(features);
  }

  get open(): boolean {
    return !this.closed;
  }

  send(message: EngineToWorker): boolean {
    if (this.closed) return false;
    this.sent.push(JSON.parse(JSON.stringify(message)) as EngineToWorker);
    return true;
  }

  close(): void {
    this.closed = true;
  }

  /** Messages of one type, in order. */
  of<T extends EngineToWorker['type']>(type: T): Extract<EngineToWorker, { type: T }>[] {
    return this.sent.filter((m): m is Extract<EngineToWorker, { type: T }> => m.type === type);
  }
}
