/**
 * One span of an invocation while it runs (`SpanRecord`: ids, name, service, times, status, the `exception`
 * event's fields), and the random trace and span ids the engine gives its spans (`IdPool`). A record lives from
 * the invocation's start to its end; its line is then written into a batch (span-lines.ts, span-batch.ts).
 */
import { randomFillSync } from 'node:crypto';

const STATUS_UNSET = 0;
const STATUS_OK = 1;
const STATUS_ERROR = 2;

/** One span of an invocation, from its start to its shipping. */
export class SpanRecord {
  /** Epoch ms (fractional) of the end; NaN while it runs. */
  endMs = NaN;
  status = STATUS_UNSET;
  statusMessage: string | undefined = undefined;
  /** The `exception` event: its type, message and stack (`exceptionType` undefined: none). */
  exceptionType: string | undefined = undefined;
  exceptionMessage: string | undefined = undefined;
  exceptionStack: string | undefined = undefined;

  constructor(
    readonly traceId: string,
    readonly spanId: string,
    readonly parentSpanId: string | undefined,
    readonly name: string,
    /** The span's `service.name` attribute: the worker that ran the call. */
    public service: string,
    /** The service of its resource: `service`, or the default one past the bound on services. */
    public resourceService: string,
    readonly invocationId: string,
    /** Epoch ms (fractional). */
    readonly startMs: number,
  ) {}

  ok(): void {
    this.status = STATUS_OK;
  }

  /** An error the way `recordException` + `setStatus(ERROR)` record it: an `exception` event, status error. */
  error(message: string, stack: string | undefined, type: string | undefined): void {
    this.exceptionType = type ?? 'Error';
    this.exceptionMessage = message;
    this.exceptionStack = stack;
    this.status = STATUS_ERROR;
    this.statusMessage = message;
  }
}

const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
const POOL_BYTES = 24 * 1024;

/**
 * Random trace and span ids (hex) cut from a pool of CSPRNG bytes turned into hex once per refill: an id is a
 * substring of that text (a `toString('hex')` per id was a tenth of the tracer's time).
 */
export class IdPool {
  private readonly pool = Buffer.allocUnsafe(POOL_BYTES);
  private hex = '';
  /** Where the next id starts in `hex` (two characters per byte). */
  private at = 2 * POOL_BYTES;

  traceId(): string {
    let id = this.take(32);
    while (id === ZERO_TRACE) id = this.take(32);
    return id;
  }

  spanId(): string {
    let id = this.take(16);
    while (id === ZERO_SPAN) id = this.take(16);
    return id;
  }

  private take(chars: number): string {
    if (this.at + chars > this.hex.length) {
      randomFillSync(this.pool);
      this.hex = this.pool.toString('hex');
      this.at = 0;
    }
    const id = this.hex.slice(this.at, this.at + chars);
    this.at += chars;
    return id;
  }
}
