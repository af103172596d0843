/**
 * The public API of the SDK. It mirrors iii-sdk@0.22.1 (`registerWorker`, `registerFunction`, `registerTrigger`,
 * `registerTriggerType`, `trigger`, `TriggerAction`, `InvocationError`, `shutdown`) so code written for one runs on
 * the other. The one addition: a handler's second argument is a `HandlerContext` (signal, logger, state, trigger)
 * whose `metadata` field holds what iii-sdk passes as the second argument.
 */
import type { Telemetry } from './telemetry/telemetry.js';
import type { Logger } from 'pino';
import type { HttpInvocationRef, TriggerActionWire } from './protocol.js';

export type TriggerActionValue = TriggerActionWire;

export interface WorkerOptions {
  /** Shown in `engine::workers::list`. Default: env `SVC_WORKER_NAME`, else `<hostname>:<pid>`. */
  workerName?: string;
  workerDescription?: string;
  /** Extra HTTP headers on the WebSocket upgrade. */
  headers?: Record<string, string>;
  /** Default timeout of `trigger()` calls, ms. Default 30000. */
  invocationTimeoutMs?: number;
  reconnectionConfig?: Partial<ReconnectionConfig>;
  /** The pino logger the SDK and handler contexts log through. Default: a pino logger on stderr. */
  logger?: Logger;
  /**
   * Called when the connection to the engine opens (after the replay of registrations) and when it closes.
   * `willReconnect` is false once the client will not try again (shutdown, or retries exhausted).
   */
  onConnectionStateChange?(state: ConnectionState): void;
  /**
   * Send handler log records (and spans made with `client.telemetry`) to the engine as OTLP frames. Default: env
   * `SVC_OTEL` is `1` or `true` (the engine sets it for the capability workers it spawns when observability is on).
   */
  telemetry?: boolean;
}

export interface ConnectionState {
  connected: boolean;
  willReconnect: boolean;
}

export interface ReconnectionConfig {
  initialDelayMs: number; // 1000
  maxDelayMs: number; // 30000
  backoffMultiplier: number; // 2
  jitterFactor: number; // 0.3
  /** -1 retries forever. */
  maxRetries: number;
}

export interface StateClient {
  get<T = unknown>(scope: string, key: string): Promise<T | undefined>;
  set<T = unknown>(scope: string, key: string, value: T): Promise<{ old_value: unknown; new_value: T }>;
  delete(scope: string, key: string): Promise<unknown>;
  list<T = unknown>(scope: string): Promise<T[]>;
}

/** The second argument of every handler. */
export interface HandlerContext {
  /**
   * Fires when the caller goes away, the invocation times out, the connection to the engine is lost, or the worker
   * shuts down. `signal.reason` is an `InvocationError` whose `code` says which.
   */
  signal: AbortSignal;
  invocationId: string | undefined;
  functionId: string;
  /** The invocation's metadata sidecar (what iii-sdk passes as the handler's second argument). */
  metadata: unknown;
  traceparent: string | undefined;
  baggage: string | undefined;
  /** Tagged with the function id and invocation id. */
  logger: HandlerLogger;
  /** Calls `state::*` through the engine. */
  state: StateClient;
  /** Like `client.trigger`, but carries this invocation's trace context (`traceparent`, `baggage`) onward. */
  trigger<T = unknown>(request: TriggerRequest): Promise<T>;
}

export interface HandlerLogger {
  info(message: string, data?: unknown): void;
  warn(message: string, data?: unknown): void;
  error(message: string, data?: unknown): void;
  debug(message: string, data?: unknown): void;
}

export type FunctionHandler<I = any, O = any> = (payload: I, context: HandlerContext) => Promise<O> | O; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface RegisterFunctionOptions {
  description?: string;
  request_format?: unknown;
  response_format?: unknown;
  metadata?: unknown;
}

export interface FunctionRef {
  id: string;
  unregister(): void;
}

export interface TriggerRegistration {
  type: string;
  function_id: string;
  config: unknown;
  metadata?: unknown;
}

export interface TriggerRef {
  id: string;
  unregister(): void;
}

/** What a trigger-type provider is handed when the engine activates or removes a binding of its type. */
export interface TriggerBinding<C = unknown> {
  id: string;
  function_id: string;
  config: C;
  metadata?: unknown;
}

export interface TriggerTypeHandler<C = unknown> {
  /** Throw to refuse the binding: the error message reaches the worker that registered the trigger. */
  registerTrigger(binding: TriggerBinding<C>): Promise<void> | void;
  unregisterTrigger(binding: TriggerBinding<C>): Promise<void> | void;
}

export interface TriggerTypeDefinition {
  id: string;
  description?: string;
  trigger_request_format?: unknown;
  call_request_format?: unknown;
}

export interface TriggerTypeRef<C = unknown> {
  id: string;
  /** Binds `functionId` to this trigger type (a `registerTrigger` with `type` filled in). */
  registerTrigger(functionId: string, config: C, metadata?: unknown): TriggerRef;
  /** Registers a function and binds it to this trigger type in one call. */
  registerFunction(
    functionId: string,
    handler: FunctionHandler,
    config: C,
    metadata?: unknown,
  ): FunctionRef & { trigger: TriggerRef };
  unregister(): void;
}

export interface TriggerRequest<P = unknown> {
  function_id: string;
  payload?: P;
  action?: TriggerActionValue;
  /** Client-side deadline (also sent to the engine so it can cancel the executor). Default 30000. */
  timeoutMs?: number;
  metadata?: unknown;
  traceparent?: string;
  baggage?: string;
  /**
   * Cancels a sync or enqueue call: the promise rejects with code `cancelled`, and the engine tells the executor
   * (whose handler's AbortSignal fires). Ignored for void calls.
   */
  signal?: AbortSignal;
  /** Set by `fireTrigger`: the id of the trigger binding that fired this call (sent as `fired_by`). */
  firedBy?: string;
  /**
   * The invocation id to send, a UUID (default: a fresh one; ignored when this client already waits on that id; any
   * other string rejects the call with `INVALID_ARGUMENTS`). For
   * relays that keep a call's id end to end, such as the engine's cluster module.
   */
  invocationId?: string;
}

export type HttpFunctionConfig = HttpInvocationRef;

export interface SvcClient {
  readonly workerId: string | undefined;
  /** The engine's WebSocket address (undefined for an engine module's in-process client). */
  readonly engineUrl: string | undefined;
  readonly logger: Logger;
  /** Spans and log records sent to the engine; undefined when telemetry is off (see `WorkerOptions.telemetry`). */
  readonly telemetry: Telemetry | undefined;
  registerFunction<I = unknown, O = unknown>(
    id: string,
    handler: FunctionHandler<I, O> | HttpFunctionConfig,
    options?: RegisterFunctionOptions,
  ): FunctionRef;
  registerTrigger(trigger: TriggerRegistration): TriggerRef;
  registerTriggerType<C = unknown>(
    definition: TriggerTypeDefinition,
    handler: TriggerTypeHandler<C>,
  ): TriggerTypeRef<C>;
  /** Takes the id, or the definition object (as iii-sdk does). */
  unregisterTriggerType(id: string | { id: string }): void;
  trigger<T = unknown, P = unknown>(request: TriggerRequest<P>): Promise<T>;
  /**
   * Cancels a sync or enqueue call this client started with `invocationId` set (what aborting its `signal` does,
   * for callers that track calls by id instead of holding an AbortSignal per call): its promise rejects with
   * code `cancelled` and the engine tells the executor. False when no such call is pending.
   */
  cancel(invocationId: string): boolean;
  /**
   * For trigger-type providers: fires a binding's function with `payload`, applying its
   * `condition_function_id` (from the binding's config) first: the handler runs only when the condition returns a
   * truthy value. Resolves `{ fired: false }` when the condition said no, `{ fired: true, result }` otherwise.
   */
  fireTrigger<T = unknown>(binding: TriggerBinding, payload: unknown, options?: FireOptions): Promise<FireResult<T>>;
  /** Resolves once the socket is open and `workerregistered` has arrived (for the first time). */
  ready(): Promise<void>;
  /**
   * Resolves once the engine has handled every frame this client sent before the call (registrations included):
   * a `ping` the engine answers with `pong` in order. A capability worker awaits it before saying it is ready, so
   * its functions can be called as soon as it says so.
   */
  synced(): Promise<void>;
  /** Stops reconnecting, rejects pending invocations, aborts running handlers, closes the socket. */
  shutdown(): Promise<void>;
}

export interface FireOptions {
  action?: TriggerActionValue;
  timeoutMs?: number;
  /** Cancels the call (see `TriggerRequest.signal`). */
  signal?: AbortSignal;
  traceparent?: string;
  baggage?: string;
}

export type FireResult<T> = { fired: false } | { fired: true; result: T | undefined };
