/**
 * The engine core: the registry (workers, functions, trigger types, triggers), routing and cancellation. It does
 * no I/O: a transport hands it typed messages from a `Connection` and it answers through connections.
 */
import type { Logger } from 'pino';
import type { Message, RegisterFunction, Reattach, UnregisterFunction } from '@svc/sdk';
import type { Connection } from './connection.js';
import { EngineErrorCode } from './errors.js';
import { FunctionRegistry } from './function-registry.js';
import { HttpFunctionHook } from './http-function-hook.js';
import { InvocationTable } from './invocation-table.js';
import { Router } from './router.js';
import { Topology } from './topology.js';
import { TriggerFlows } from './trigger-flows.js';
import { TriggerRegistry } from './trigger-registry.js';
import { sanitizeMetadata } from './worker-metadata.js';
import { Worker } from './worker.js';

export interface CoreOptions {
  logger: Logger;
  /** Engine-side deadline of an invocation when the caller sent no `timeout_ms`. Default 30000 ms. */
  invocationTimeoutMs?: number;
}

export const DEFAULT_INVOCATION_TIMEOUT_MS = 30_000;

export class EngineCore {
  readonly workers = new Map<string, Worker>();
  readonly functions = new FunctionRegistry();
  readonly triggers = new TriggerRegistry();
  readonly invocations = new InvocationTable();
  readonly topology: Topology;
  readonly router: Router;
  readonly httpFunctions: HttpFunctionHook;
  private readonly flows: TriggerFlows;
  private readonly logger: Logger;

  constructor(options: CoreOptions) {
    this.logger = options.logger;
    this.topology = new Topology(this.logger);
    this.router = new Router(this.functions, this.invocations, {
      logger: this.logger,
      invocationTimeoutMs: options.invocationTimeoutMs ?? DEFAULT_INVOCATION_TIMEOUT_MS,
    });
    this.flows = new TriggerFlows(this.triggers, this.logger, () => this.topology.emit({ kind: 'triggers' }));
    this.httpFunctions = new HttpFunctionHook(this.logger);
  }

  /** A new connection: assigns the worker id and reattach token and sends `workerregistered`. */
  attach(conn: Connection, defaultName?: string): Worker {
    const worker = new Worker(conn, defaultName);
    this.workers.set(worker.id, worker);
    worker.send({ type: 'workerregistered', worker_id: worker.id, reattach_token: worker.reattachToken });
    this.topology.emit({ kind: 'worker', event: 'worker_connected', workerId: worker.id });
    return worker;
  }

  /**
   * One decoded message from `worker`. Never throws on any well-formed message. `raw` is the frame's text when
   * it came off a socket; a result whose ids need no rewriting is relayed as that text, without re-encoding.
   */
  receive(worker: Worker, msg: Message, raw?: string): void {
    if (worker.closed) return;
    switch (msg.type) {
      case 'invokefunction':
        return this.router.invoke(worker, msg, raw);
      case 'invocationresult':
        if (!this.router.result(worker, msg, raw)) this.unknownResult(worker, msg.invocation_id);
        return;
      case 'registerfunction':
        return this.registerFunction(worker, msg);
      case 'unregisterfunction':
        return this.unregisterFunction(worker, msg);
      case 'registertriggertype':
        return this.flows.registerType(worker, msg);
      case 'unregistertriggertype':
        return this.flows.unregisterType(worker, msg);
      case 'registertrigger':
        return this.flows.registerTrigger(worker, msg);
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
      case 'pong':
      case 'registerservice':
        return;
      default:
        // Engine-to-worker messages sent by a worker make no sense; ignore them as unknown.
        this.logger.debug({ type: msg.type, workerId: worker.id }, 'ignored a message only the engine sends');
    }
  }

  /** The connection closed (or was evicted): ends its invocations and removes everything it registered. */
  detach(worker: Worker): void {
    if (worker.closed) return;
    worker.closed = true;
    this.workers.delete(worker.id);
    this.router.workerGone(worker);
    const functionsChanged = worker.functions.size > 0;
    for (const id of [...worker.functions]) this.functions.unregister(id, worker);
    this.httpFunctions.workerGone(worker);
    this.flows.workerGone(worker);
    if (functionsChanged) this.topology.emit({ kind: 'functions' });
    this.topology.emit({ kind: 'worker', event: 'worker_disconnected', workerId: worker.id });
  }

  /** Stores what `engine::workers::register` reported. Returns false for an unknown worker. */
  setWorkerMetadata(workerId: string, raw: unknown): boolean {
    const worker = this.workers.get(workerId);
    if (worker === undefined) return false;
    worker.metadata = sanitizeMetadata(raw);
    this.topology.emit({ kind: 'worker', event: 'worker_metadata_updated', workerId });
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

  private registerFunction(worker: Worker, msg: RegisterFunction): void {
    if (msg.invocation != null) {
      // the same id re-registered as HTTP-invoked: the worker no longer executes it itself
      if (worker.functions.has(msg.id)) this.unregisterFunction(worker, { type: 'unregisterfunction', id: msg.id });
      this.httpFunctions.register(worker, msg);
      return;
    }
    this.httpFunctions.unregister(worker, msg.id);
    this.functions.register(msg.id, worker, {
      description: msg.description,
      request_format: msg.request_format,
      response_format: msg.response_format,
      metadata: msg.metadata,
    });
    this.topology.emit({ kind: 'functions' });
  }

  private unregisterFunction(worker: Worker, msg: UnregisterFunction): void {
    if (this.httpFunctions.unregister(worker, msg.id)) return;
    if (!worker.functions.has(msg.id)) return;
    this.functions.unregister(msg.id, worker);
    this.topology.emit({ kind: 'functions' });
  }

  /** PROTOCOL.md §1.5: a reconnecting worker evicts its previous connection, if it proves it owned it. */
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
