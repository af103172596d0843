/**
 * The engine core: the registry (workers, functions, trigger types, triggers), routing and cancellation. It does
 * no I/O: a transport hands it typed messages from a `Connection` and it answers through connections. Modules
 * plug in through `hooks` (docs/hooks.md); the core names no capability.
 */
import type { Message, Reattach } from '@svc/sdk';
import { DEFAULT_INVOCATION_TIMEOUT_MS } from '@svc/sdk/core';
import type { CallOptions, InvocationOutcome } from './call.js';
import type { Connection, RawFrame } from './connection.js';
import { EngineErrorCode } from './errors.js';
import { FunctionRegistry } from './function-registry.js';
import { Hooks } from './hooks.js';
import { InvocationLifecycle } from './invocation-lifecycle.js';
import { InvocationTable } from './invocation-table.js';
import type { CoreLogger } from './logger.js';
import { Registrations, type RegistrationLimits } from './registrations.js';
import {
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_MAX_IN_FLIGHT_PER_CALLER,
  DEFAULT_MAX_IN_FLIGHT_PER_WORKER,
  Router,
} from './router.js';
import { ServiceRegistry } from './service-registry.js';
import { TriggerFlows } from './trigger-flows.js';
import { TriggerRegistry } from './trigger-registry.js';
import { Worker, type WorkerMetadata } from './worker.js';

export interface CoreOptions {
  logger: CoreLogger;
  /** Engine-side deadline of an invocation when the caller sent no `timeout_ms`. Default 30000 ms. */
  invocationTimeoutMs?: number;
  /**
   * Function ids whose calls carry `_caller_worker_id` even from engine modules (in-process callers), e.g. the
   * function a worker reports its metadata through. Default none.
   */
  namesInProcessCallerTo?: Iterable<string>;
  /** What one worker may register (default `DEFAULT_REGISTRATION_LIMITS`). */
  registrationLimits?: RegistrationLimits;
  /** Calls one worker may be executing at once (default `DEFAULT_MAX_IN_FLIGHT_PER_WORKER`). */
  maxInFlightPerWorker?: number;
  /** Calls in flight in all (default `DEFAULT_MAX_IN_FLIGHT`). */
  maxInFlight?: number;
  /** Calls one connection may be waiting on at once (default `DEFAULT_MAX_IN_FLIGHT_PER_CALLER`). */
  maxInFlightPerCaller?: number;
}

export class EngineCore {
  readonly workers = new Map<string, Worker>();
  readonly functions = new FunctionRegistry();
  readonly triggers = new TriggerRegistry();
  readonly invocations = new InvocationTable();
  readonly services = new ServiceRegistry();
  readonly hooks: Hooks;
  readonly router: Router;
  private readonly registrations: Registrations;
  private readonly flows: TriggerFlows;
  private readonly logger: CoreLogger;

  constructor(options: CoreOptions) {
    this.logger = options.logger;
    this.hooks = new Hooks(this.logger);
    const lifecycle = new InvocationLifecycle(this.invocations, this.hooks, this.logger);
    this.router = new Router(this.functions, lifecycle, this.hooks, {
      invocationTimeoutMs: options.invocationTimeoutMs ?? DEFAULT_INVOCATION_TIMEOUT_MS,
      namesInProcessCallerTo: new Set(options.namesInProcessCallerTo ?? []),
      maxInFlightPerWorker: options.maxInFlightPerWorker ?? DEFAULT_MAX_IN_FLIGHT_PER_WORKER,
      maxInFlight: options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT,
      maxInFlightPerCaller: options.maxInFlightPerCaller ?? DEFAULT_MAX_IN_FLIGHT_PER_CALLER,
    });
    this.flows = new TriggerFlows(this.triggers, this.logger, () => this.hooks.emitTopology({ kind: 'triggers' }));
    this.registrations = new Registrations(
      this.functions,
      this.hooks,
      this.logger,
      () => this.hooks.emitTopology({ kind: 'functions' }),
      options.registrationLimits,
    );
  }

  /** A new connection: assigns the worker id and reattach token and sends `workerregistered`. */
  attach(conn: Connection, defaultName?: string): Worker {
    const worker = new Worker(conn, defaultName);
    this.workers.set(worker.id, worker);
    worker.send({ type: 'workerregistered', worker_id: worker.id, reattach_token: worker.reattachToken });
    this.hooks.emitTopology({ kind: 'worker', event: 'worker_connected', workerId: worker.id });
    return worker;
  }

  /**
   * One decoded message from `worker`. Never throws on any well-formed message. `raw` is the frame as the
   * worker's transport received it (opaque here): handed back to a transport that may forward it as it came.
   */
  receive(worker: Worker, msg: Message, raw?: RawFrame): void {
    if (worker.closed) return;
    switch (msg.type) {
      case 'invokefunction':
        return this.router.invoke(worker, msg, raw);
      case 'invocationresult':
        if (!this.router.result(worker, msg, raw)) this.unknownResult(worker, msg.invocation_id);
        return;
      case 'registerfunction':
        return this.registrations.registerFunction(worker, msg);
      case 'unregisterfunction':
        return this.registrations.unregisterFunction(worker, msg);
      case 'registertriggertype':
        if (this.registrations.admitTriggerType(worker, msg)) this.flows.registerType(worker, msg);
        return;
      case 'unregistertriggertype':
        return this.flows.unregisterType(worker, msg);
      case 'registertrigger':
        if (this.registrations.admitTrigger(worker, msg)) this.flows.registerTrigger(worker, msg);
        return;
      case 'unregistertrigger':
        return this.flows.unregisterTrigger(worker, msg);
      case 'triggerregistrationresult':
        return this.flows.registrationResult(worker, msg);
      case 'reattach':
        return this.reattach(worker, msg);
      case 'cancelinvocation':
        return this.router.cancelByCaller(worker, msg.invocation_id);
      case 'ping':
        worker.send({ type: 'pong' });
        return;
      case 'registerservice':
        return this.services.register(worker, msg);
      case 'pong':
        return;
      default:
        // Engine-to-worker messages sent by a worker make no sense; ignore them as unknown.
        this.logger.debug({ type: msg.type, workerId: worker.id }, 'ignored a message only the engine sends');
    }
  }

  /** An engine-internal call (a module's action handler, a trigger); `onDone` gets exactly one outcome. */
  call(functionId: string, data: unknown, options: CallOptions, onDone: (outcome: InvocationOutcome) => void): void {
    this.router.call(functionId, data, options, onDone);
  }

  /** The connection closed (or was evicted): ends its invocations and removes everything it registered. */
  detach(worker: Worker): void {
    if (worker.closed) return;
    worker.closed = true;
    this.workers.delete(worker.id);
    this.router.workerGone(worker);
    const functionsChanged = worker.functions.size > 0;
    for (const id of [...worker.functions]) this.functions.unregister(id, worker);
    this.registrations.workerGone(worker);
    this.flows.workerGone(worker);
    this.services.workerGone(worker);
    if (functionsChanged) this.hooks.emitTopology({ kind: 'functions' });
    this.hooks.emitTopology({ kind: 'worker', event: 'worker_disconnected', workerId: worker.id });
  }

  /** Stores what `engine::workers::register` reported (already sanitised). Returns false for an unknown worker. */
  setWorkerMetadata(workerId: string, metadata: WorkerMetadata): boolean {
    const worker = this.workers.get(workerId);
    if (worker === undefined) return false;
    worker.metadata = metadata;
    this.hooks.emitTopology({ kind: 'worker', event: 'worker_metadata_updated', workerId });
    return true;
  }

  /** A late result (after a timeout or a cancel) or one for an invocation never sent to this worker. */
  private unknownResult(worker: Worker, invocationId: string): void {
    this.logger.debug({ invocationId, workerId: worker.id }, 'result for an unknown or ended invocation dropped');
    worker.send({
      type: 'error',
      error: {
        code: EngineErrorCode.UnknownInvocation,
        message: `invocation ${invocationId} is not running on this worker (it ended, timed out, or never existed); result dropped`,
      },
    });
  }

  /**
   * docs/protocol.md, "1.5 Reconnecting": a reconnecting worker evicts its previous connection, if it proves it owned
   * it.
   */
  private reattach(worker: Worker, msg: Reattach): void {
    const previous = this.workers.get(msg.previous_worker_id);
    if (previous === undefined || previous === worker) return;
    if (msg.reattach_token !== previous.reattachToken) {
      this.logger.warn(
        { workerId: worker.id, previous: msg.previous_worker_id },
        'reattach with a wrong token ignored',
      );
      return;
    }
    this.logger.debug({ workerId: worker.id, previous: previous.id }, 'reattach: evicting the previous connection');
    previous.conn.close(1000, 'reattached elsewhere');
    this.detach(previous);
  }
}

export { EngineErrorCode };
