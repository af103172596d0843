/**
 * Checks configuration values against their JSON Schemas off the engine's event loop, within a time budget.
 *
 * Any worker may register a schema, and Ajv runs what the schema says: a `pattern` such as `^(a+)+$` backtracks for
 * minutes on a 35-character string, and `uniqueItems` compares every pair of a long array of objects. Run on the
 * engine's thread, one such `configuration::set` would stop all routing. The checks run in a worker thread
 * (schema-thread.ts), one at a time; a check that outlives `budgetMs` ends the thread (the next check starts a new
 * one) and is answered as a schema that cannot be used for that value. The thread starts at the first check and
 * never keeps the process alive.
 */
import { Worker } from 'node:worker_threads';

/** Time one check (compile, then validate) may take. */
export const CHECK_BUDGET_MS = 2000;

export interface CheckRequest {
  seq: number;
  schema: unknown;
  value?: unknown;
  /** Compile only when false (a schema registered without a value to check). */
  hasValue: boolean;
}

export interface CheckReply {
  seq: number;
  /** The schema does not compile: Ajv's message. */
  schemaError?: string;
  /** The value does not match: each failure as `<path> <message>`. */
  valueError?: string;
}

export type CheckOutcome =
  | { kind: 'ok' }
  | { kind: 'schema'; message: string }
  | { kind: 'value'; message: string }
  | { kind: 'timeout'; budgetMs: number };

interface Running {
  thread: Worker;
  ready: Promise<void>;
}

export class SchemaChecker {
  private running: Running | undefined;
  private seq = 0;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly budgetMs = CHECK_BUDGET_MS) {}

  /** Compiles `schema` and, when a value is given, checks it; checks run in call order. */
  check(schema: unknown, ...value: [] | [unknown]): Promise<CheckOutcome> {
    const request: CheckRequest = { seq: ++this.seq, schema, hasValue: value.length > 0, value: value[0] };
    const outcome = this.tail.then(() => this.run(request));
    this.tail = outcome.catch(() => undefined);
    return outcome;
  }

  async close(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    await running?.thread.terminate();
  }

  private start(): Running {
    const thread = new Worker(new URL('./schema-thread.js', import.meta.url));
    thread.unref();
    const ready = new Promise<void>((resolve, reject) => {
      thread.once('message', () => resolve());
      thread.once('error', reject);
      thread.once('exit', (code) => reject(new Error(`schema check thread exited with code ${code} while starting`)));
    });
    const running = { thread, ready };
    thread.on('exit', () => {
      if (this.running === running) this.running = undefined;
    });
    return running;
  }

  private async run(request: CheckRequest): Promise<CheckOutcome> {
    const running = (this.running ??= this.start());
    await running.ready;
    return new Promise<CheckOutcome>((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(timer);
        running.thread.off('message', onMessage);
        running.thread.off('exit', onExit);
      };
      const onMessage = (reply: CheckReply): void => {
        if (reply.seq !== request.seq) return;
        settle();
        if (reply.schemaError !== undefined) resolve({ kind: 'schema', message: reply.schemaError });
        else if (reply.valueError !== undefined) resolve({ kind: 'value', message: reply.valueError });
        else resolve({ kind: 'ok' });
      };
      const onExit = (code: number): void => {
        settle();
        reject(new Error(`schema check thread exited with code ${code}`));
      };
      const timer = setTimeout(() => {
        settle();
        if (this.running === running) this.running = undefined;
        void running.thread.terminate();
        resolve({ kind: 'timeout', budgetMs: this.budgetMs });
      }, this.budgetMs);
      running.thread.on('message', onMessage);
      running.thread.once('exit', onExit);
      try {
        running.thread.postMessage(request);
      } catch (err) {
        settle(); // a value the thread cannot be handed (nested past the copier's stack)
        resolve({ kind: 'value', message: `it cannot be checked: ${(err as Error).message}` });
      }
    });
  }
}
