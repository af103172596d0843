/**
 * The SDK client over any `ClientTransport`: registrations (stored and replayed on every open), outgoing calls
 * (pending until their `invocationresult`), the executor side (InvocationRunner) and trigger-type providers.
 *
 * Replay order on every open (docs/protocol.md, "1.5 Reconnecting"): `reattach` (when a previous worker id and token
 * are held), trigger types, functions, triggers (same ids), the frames queued while disconnected (minus calls whose
 * caller has timed out), then the void `engine::workers::register` with this worker's metadata.
 */
import type { Logger } from 'pino';
import type { ClientTransport } from '../connection/transport.js';
import type { EngineToWorker, WorkerToEngine } from '../protocol.js';
import { callerIntoData } from '../codec.js';
import type {
  FireOptions,
  FireResult,
  FunctionHandler,
  FunctionRef,
  HttpFunctionConfig,
  RegisterFunctionOptions,
  SvcClient,
  TriggerBinding,
  TriggerRef,
  TriggerRegistration,
  TriggerRequest,
  TriggerTypeDefinition,
  TriggerTypeHandler,
  TriggerTypeRef,
  WorkerOptions,
} from '../types.js';
import { workerMetadata } from '../worker-metadata.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { connectionClosedError, connectionLostError, shutdownError } from './client-errors.js';
import { fireTrigger } from './fire-trigger.js';
import { InvocationRunner } from './invocation-runner.js';
import { OutboundQueue } from './outbound-queue.js';
import { OutgoingCalls } from './outgoing-calls.js';
import { PendingInvocations } from './pending-invocations.js';
import { localFunction, Registrations, triggerFrame } from './registrations.js';
import { TriggerProviders } from './trigger-providers.js';
import { ClientErrorCode } from '../error-codes.js';
import { DEFAULT_INVOCATION_TIMEOUT_MS } from '../constants.js';

/** Builds a client's telemetry (or none); `createClient` passes `createWorkerTelemetry`. */
export type TelemetryFactory = (
  transport: ClientTransport,
  serviceName: string,
  option: boolean | undefined,
) => Telemetry | undefined;

export interface ClientSettings extends WorkerOptions {
  logger: Logger;
  workerName: string;
  /**
   * Without it the client has no telemetry, and OpenTelemetry is not loaded: the engine's in-process clients,
   * whose transport carries no telemetry frames, are built that way.
   */
  createTelemetry?: TelemetryFactory;
}

export class Client implements SvcClient {
  readonly logger: Logger;
  readonly telemetry: Telemetry | undefined;
  private readonly registrations = new Registrations();
  private readonly pending = new PendingInvocations();
  /** `synced()` calls waiting for the engine's `pong`, oldest first. */
  private readonly pongWaiters: (() => void)[] = [];
  private readonly queue: OutboundQueue;
  private readonly runner: InvocationRunner;
  private readonly providers: TriggerProviders;
  private readonly calls: OutgoingCalls;
  private id: string | undefined;
  private reattachToken: string | undefined;
  private readonly readyPromise: Promise<void>;
  private resolveReady!: () => void;
  private rejectReady!: (err: Error) => void;
  private closing: Promise<void> | undefined;
  private stopping = false;
  /** Incremented on every lost connection (InvocationRunner drops results that belong to an older one). */
  private epoch = 0;
  /** The transport closed for good without shutdown() (retries exhausted, or the engine closed us). */
  private terminated = false;

  constructor(
    private readonly transport: ClientTransport,
    private readonly settings: ClientSettings,
  ) {
    this.logger = settings.logger;
    this.telemetry = settings.createTelemetry?.(transport, settings.workerName, settings.telemetry);
    this.calls = new OutgoingCalls(
      this.pending,
      (frame) => this.sendQueued(frame),
      settings.invocationTimeoutMs ?? DEFAULT_INVOCATION_TIMEOUT_MS,
    );
    this.queue = new OutboundQueue(this.pending, this.logger);
    this.runner = new InvocationRunner(this, this.registrations);
    this.providers = new TriggerProviders(this, this.registrations);
    this.readyPromise = new Promise<void>((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.readyPromise.catch(() => undefined); // rejected only on shutdown; callers of ready() still see it
  }

  get connectionEpoch(): number {
    return this.epoch;
  }

  get workerId(): string | undefined {
    return this.id;
  }

  get engineUrl(): string | undefined {
    return this.transport.url;
  }

  start(): this {
    this.transport.start({
      onOpen: () => this.onOpen(),
      onMessage: (msg) => this.onMessage(msg),
      onClose: (info) => this.onClose(info),
    });
    return this;
  }

  ready(): Promise<void> {
    return this.readyPromise;
  }

  registerFunction<I = unknown, O = unknown>(
    id: string,
    handler: FunctionHandler<I, O> | HttpFunctionConfig,
    options: RegisterFunctionOptions = {},
  ): FunctionRef {
    const local = localFunction(id, handler, options);
    const frame = local.frame;
    this.registrations.addFunction(local);
    this.sendRegistration(frame);
    return {
      id,
      unregister: () => {
        if (this.registrations.functions.get(id) !== local) return;
        this.registrations.functions.delete(id);
        this.sendRegistration({ type: 'unregisterfunction', id });
      },
    };
  }

  registerTrigger(trigger: TriggerRegistration): TriggerRef {
    const frame = triggerFrame(trigger);
    this.registrations.addTrigger(frame);
    this.sendRegistration(frame);
    return {
      id: frame.id,
      unregister: () => {
        if (!this.registrations.triggers.delete(frame.id)) return;
        this.sendQueued({ type: 'unregistertrigger', id: frame.id, trigger_type: frame.trigger_type });
      },
    };
  }

  registerTriggerType<C = unknown>(
    definition: TriggerTypeDefinition,
    handler: TriggerTypeHandler<C>,
  ): TriggerTypeRef<C> {
    const frame = { type: 'registertriggertype' as const, ...definition };
    const local = { frame, handler: handler as TriggerTypeHandler };
    const type = definition.id;
    this.registrations.addTriggerType(local);
    this.sendRegistration(frame);
    return {
      id: type,
      registerTrigger: (function_id, config, metadata) => this.registerTrigger({ type, function_id, config, metadata }),
      registerFunction: (function_id, fnHandler, config, metadata) => {
        const fn = this.registerFunction(function_id, fnHandler);
        const trigger = this.registerTrigger({ type, function_id, config, metadata });
        return {
          id: fn.id,
          trigger,
          unregister: () => {
            trigger.unregister();
            fn.unregister();
          },
        };
      },
      unregister: () => {
        if (this.registrations.triggerTypes.get(type) === local) this.unregisterTriggerType(type);
      },
    };
  }

  unregisterTriggerType(idOrDefinition: string | { id: string }): void {
    const id = typeof idOrDefinition === 'string' ? idOrDefinition : idOrDefinition.id;
    const local = this.registrations.triggerTypes.get(id);
    if (local === undefined) return;
    this.registrations.triggerTypes.delete(id);
    void this.providers.dropType(id);
    this.sendRegistration({ type: 'unregistertriggertype', id });
  }

  trigger<T = unknown, P = unknown>(request: TriggerRequest<P>): Promise<T> {
    if (this.stopping) return Promise.reject(shutdownError(request.function_id));
    if (this.terminated) return Promise.reject(connectionClosedError());
    return this.calls.call<T>(request);
  }

  cancel(invocationId: string): boolean {
    return this.calls.cancel(invocationId);
  }

  synced(): Promise<void> {
    if (this.terminated || this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      this.pongWaiters.push(resolve);
      // not connected: the ping goes out after the replayed registrations once the connection is back
      this.sendQueued({ type: 'ping' });
    });
  }

  fireTrigger<T = unknown>(binding: TriggerBinding, payload: unknown, options?: FireOptions): Promise<FireResult<T>> {
    return fireTrigger<T>(this, binding, payload, options);
  }

  shutdown(): Promise<void> {
    if (this.closing === undefined) {
      this.stopping = true; // set before close() runs: the transport reports its close synchronously
      this.closing = this.close();
    }
    return this.closing;
  }

  /** Sends now, or keeps the frame until the connection is back (docs/protocol.md, "1.5 Reconnecting", step 3). */
  sendQueued(frame: WorkerToEngine): boolean {
    if (this.transport.send(frame)) return true;
    this.queue.push(frame);
    return false;
  }

  /** Registration frames are never queued: the store replays them on the next open. */
  private sendRegistration(frame: WorkerToEngine): void {
    if (!this.stopping) this.transport.send(frame);
  }

  private onOpen(): void {
    if (this.id !== undefined && this.reattachToken !== undefined) {
      this.transport.send({ type: 'reattach', previous_worker_id: this.id, reattach_token: this.reattachToken });
    }
    for (const frame of this.registrations.replay()) if (!this.transport.send(frame)) return;
    if (!this.queue.flush(this.transport)) return;
    this.transport.send({
      type: 'invokefunction',
      function_id: 'engine::workers::register',
      data: workerMetadata(this.settings.workerName, this.settings.workerDescription),
      action: { type: 'void' },
    });
    this.notifyConnectionState({ connected: true, willReconnect: true });
  }

  private onMessage(msg: EngineToWorker): void {
    switch (msg.type) {
      case 'invokefunction':
        if (msg.caller_worker_id !== undefined) callerIntoData(msg);
        return this.runner.handleInvoke(msg);
      case 'invocationresult':
        return this.pending.settle(msg);
      case 'workerregistered':
        this.id = msg.worker_id;
        this.reattachToken = msg.reattach_token;
        this.logger.debug({ worker_id: msg.worker_id }, 'worker registered');
        return this.resolveReady();
      case 'cancelinvocation':
        return this.runner.cancel(msg);
      case 'registertrigger':
        void this.providers.onRegisterTrigger(msg);
        return;
      case 'unregistertrigger':
        void this.providers.onUnregisterTrigger(msg);
        return;
      case 'triggerregistrationresult':
        if (msg.error) {
          this.logger.error(
            { trigger_id: msg.id, trigger_type: msg.trigger_type, function_id: msg.function_id, code: msg.error.code },
            `trigger registration failed: ${msg.error.message}`,
          );
        }
        return;
      case 'ping':
        this.transport.send({ type: 'pong' });
        return;
      case 'pong':
        // the engine answers pings in order, after every frame sent before them
        this.pongWaiters.shift()?.();
        return;
      case 'error':
        this.logger.warn({ code: msg.error.code }, `engine error: ${msg.error.message}`);
        return;
      default:
        return;
    }
  }

  private onClose(info: { code: number; reason: string; willReconnect: boolean }): void {
    if (!this.stopping) {
      const fields = { code: info.code, reason: info.reason };
      if (info.willReconnect) this.logger.warn(fields, 'engine connection lost; reconnecting');
      else this.logger.info(fields, 'engine connection closed');
    }
    // The engine has stopped everything this connection started or executed (docs/protocol.md, 3.6).
    this.epoch++;
    this.pending.failSent(connectionLostError);
    // a lost connection answers no ping: the frames before it are replayed on the next one, so ask again there
    const waiting = this.pongWaiters.splice(0);
    for (const resolve of waiting) {
      if (info.willReconnect && !this.stopping) void this.synced().then(resolve);
      else resolve();
    }
    if (!info.willReconnect) {
      this.terminated = true;
      // No further connection will come (retries exhausted, or the engine closed an in-process client).
      this.pending.rejectAll(connectionLostError);
      this.queue.clear();
      this.rejectReady(connectionClosedError());
    }
    this.runner.abortAll('connection_lost');
    // On shutdown the provider's own close() tears its bindings down; calling it back here would race that.
    if (!this.stopping) void this.providers.deactivateAll();
    this.notifyConnectionState({ connected: false, willReconnect: info.willReconnect });
  }

  private notifyConnectionState(state: { connected: boolean; willReconnect: boolean }): void {
    try {
      this.settings.onConnectionStateChange?.(state);
    } catch (err) {
      this.logger.error({ err }, 'onConnectionStateChange threw');
    }
  }

  private async close(): Promise<void> {
    this.rejectReady(shutdownError(undefined));
    this.pending.rejectAll(shutdownError);
    this.runner.abortAll(ClientErrorCode.ClientShutdown);
    this.queue.clear();
    await this.telemetry?.shutdown().catch(() => undefined); // flushes buffered spans and logs while still open
    await this.transport.close();
  }
}
