/**
 * Functions registered with an HTTP `invocation` config are executed by the HTTP-functions engine module, not by
 * the worker that registered them. The core hands such registrations to the registrar the module installs
 * (`EngineInternals.setHttpFunctionRegistrar`), and removes them when the worker unregisters them or leaves.
 * Without a registrar the registration is refused: logged, and an `error` frame tells the worker.
 */
import type { Logger } from 'pino';
import type { HttpInvocationRef, RegisterFunction } from '@svc/sdk';
import { EngineErrorCode } from './errors.js';
import type { Worker } from './worker.js';

/** What the registrar is given: the worker's `registerfunction` frame, unchanged, plus who sent it. */
export interface HttpFunctionRegistration {
  functionId: string;
  invocation: HttpInvocationRef;
  description?: string;
  request_format?: unknown;
  response_format?: unknown;
  metadata?: unknown;
  /** The id of the worker that registered it (the function lives as long as that worker stays connected). */
  workerId: string;
}

/** The handle a registrar returns; `unregister()` is called when the worker unregisters the id or disconnects. */
export interface HttpFunctionHandle {
  unregister(): void;
}

/**
 * Installed by the HTTP-functions module. Throw to refuse a registration (e.g. a URL outside the allowlist): the
 * message is logged and sent to the worker in an `error` frame. It may be called for the same id by several
 * workers (replicas); each call gets its own handle.
 */
export type HttpFunctionRegistrar = (registration: HttpFunctionRegistration) => HttpFunctionHandle;

export class HttpFunctionHook {
  private registrar: HttpFunctionRegistrar | undefined;

  constructor(private readonly logger: Logger) {}

  setRegistrar(registrar: HttpFunctionRegistrar | undefined): void {
    this.registrar = registrar;
  }

  register(worker: Worker, msg: RegisterFunction): void {
    const invocation = msg.invocation!;
    if (this.registrar === undefined) {
      this.refuse(
        worker,
        msg.id,
        `Function ${msg.id} has an HTTP invocation config, but the HTTP-functions module is not loaded; ` +
          'add modules::http_functions::HttpFunctionsModule to the engine config',
      );
      return;
    }
    this.unregister(worker, msg.id);
    try {
      const handle = this.registrar({
        functionId: msg.id,
        invocation,
        description: msg.description,
        request_format: msg.request_format,
        response_format: msg.response_format,
        metadata: msg.metadata,
        workerId: worker.id,
      });
      worker.httpFunctions.set(msg.id, handle);
    } catch (err) {
      this.refuse(worker, msg.id, `Function ${msg.id} refused: ${(err as Error).message}`);
    }
  }

  /** Returns true when `id` was one of `worker`'s HTTP functions. */
  unregister(worker: Worker, id: string): boolean {
    const handle = worker.httpFunctions.get(id);
    if (handle === undefined) return false;
    worker.httpFunctions.delete(id);
    this.release(id, handle);
    return true;
  }

  workerGone(worker: Worker): void {
    for (const [id, handle] of worker.httpFunctions) this.release(id, handle);
    worker.httpFunctions.clear();
  }

  private release(id: string, handle: HttpFunctionHandle): void {
    try {
      handle.unregister();
    } catch (err) {
      this.logger.error({ err, functionId: id }, 'HTTP function unregister failed');
    }
  }

  private refuse(worker: Worker, functionId: string, message: string): void {
    this.logger.error({ functionId, workerId: worker.id }, message);
    worker.send({ type: 'error', error: { code: EngineErrorCode.HttpFunctionsUnavailable, message } });
  }
}
