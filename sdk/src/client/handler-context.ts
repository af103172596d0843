/**
 * The second argument of every handler. One instance per invocation; the logger, state client and abort
 * controller are created only when the handler first touches them, so an invocation that uses none of them costs
 * a single small object.
 */
import type { Logger } from 'pino';
import { InvocationError } from '../errors.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { newTraceparent } from '../trace-context.js';
import type { HandlerContext, HandlerLogger, StateClient, TriggerRequest } from '../types.js';
import { HandlerLoggerImpl } from './handler-logger.js';
import { EngineStateClient } from './state-client.js';

/** What a context needs from its client. */
export interface ContextHost {
  readonly logger: Logger;
  readonly telemetry: Telemetry | undefined;
  trigger<T = unknown>(request: TriggerRequest): Promise<T>;
}

export class InvocationContext implements HandlerContext {
  private controller: AbortController | undefined;
  private abortReason: Error | undefined;
  private handlerLogger: HandlerLogger | undefined;
  private stateClient: StateClient | undefined;
  /** The trace this invocation continues (or starts, when it came without one). */
  private ownTraceparent: string | undefined;
  /** @internal the connection epoch the invocation arrived on (see InvocationRunner). */
  epoch = 0;

  constructor(
    private readonly host: ContextHost,
    readonly functionId: string,
    readonly invocationId: string | undefined,
    readonly metadata: unknown,
    readonly traceparent: string | undefined,
    readonly baggage: string | undefined,
  ) {}

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.abortReason !== undefined) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.abortReason !== undefined;
  }

  get logger(): HandlerLogger {
    const telemetry = this.host.telemetry;
    this.handlerLogger ??= new HandlerLoggerImpl(
      this.host.logger.child({ function_id: this.functionId, invocation_id: this.invocationId }),
      telemetry === undefined
        ? undefined
        : {
            telemetry,
            traceparent: this.traceparent,
            attributes: {
              function_id: this.functionId,
              ...(this.invocationId ? { invocation_id: this.invocationId } : {}),
            },
          },
    );
    return this.handlerLogger;
  }

  get state(): StateClient {
    this.stateClient ??= new EngineStateClient(this);
    return this.stateClient;
  }

  /**
   * Like the client's `trigger`, carrying this invocation's trace context and baggage onward. The span of this
   * invocation is the engine's (it records one per call, named after the function, in the executor's name), so
   * the nested call's parent is this invocation's own `traceparent`, unchanged.
   */
  trigger<T = unknown>(request: TriggerRequest): Promise<T> {
    const traceparent = request.traceparent ?? this.nextTraceparent();
    const baggage = request.baggage ?? this.baggage;
    return this.host.trigger<T>({ ...request, traceparent, baggage });
  }

  /** Fires the handler's signal (once). `reason` is the wire's cancel reason, e.g. `caller_disconnected`. */
  abort(reason: string): void {
    if (this.abortReason !== undefined) return;
    this.abortReason = new InvocationError({
      code: reason,
      message: `the invocation was cancelled (${reason})`,
      function_id: this.functionId,
    });
    this.abortReason.name = 'AbortError';
    this.controller?.abort(this.abortReason);
  }

  private nextTraceparent(): string {
    if (this.traceparent !== undefined) return this.traceparent;
    this.ownTraceparent ??= newTraceparent();
    return this.ownTraceparent;
  }
}
