/**
 * Function registrations, after the registration interceptors had their say: a claimed function is executed by
 * the module that claimed it (the worker's claim is released when it unregisters the id, registers it again, or
 * leaves); a refused one is reported to the worker; anything else becomes one replica of the function.
 */
import type { ErrorBody, RegisterFunction, RegisterTrigger, RegisterTriggerType, UnregisterFunction } from '@svc/sdk';
import { EngineErrorCode, errorBody } from './errors.js';
import type { FunctionRegistry } from './function-registry.js';
import type { Hooks, Registration, RegistrationVerdict } from './hooks.js';
import type { CoreLogger } from './logger.js';
import type { Worker } from './worker.js';

/**
 * What one worker may register. Registrations live in the engine's memory while their worker is connected, and our
 * SDK registers them again after every reconnect: without a bound, a worker registering functions with 8 MiB
 * schemas (600 of them took the engine to 2.5 GB), or a new function id per request, grows the engine without end.
 */
export interface RegistrationLimits {
  /** Characters of one registration's id and JSON (description, schemas, config, metadata); default 1 MiB. */
  maxBytes: number;
  /** Functions, triggers and trigger types one worker holds at once; default 100,000. */
  maxPerWorker: number;
}

export const DEFAULT_REGISTRATION_LIMITS: RegistrationLimits = { maxBytes: 1024 * 1024, maxPerWorker: 100_000 };

export class Registrations {
  constructor(
    private readonly functions: FunctionRegistry,
    private readonly hooks: Hooks,
    private readonly logger: CoreLogger,
    private readonly functionsChanged: () => void,
    private readonly limits: RegistrationLimits = DEFAULT_REGISTRATION_LIMITS,
  ) {}

  registerFunction(worker: Worker, msg: RegisterFunction): void {
    const known = worker.functions.has(msg.id) || worker.claims.has(msg.id);
    const over = this.overLimits(worker, 'function', msg.id, known, [
      msg.description,
      msg.request_format,
      msg.response_format,
      msg.metadata,
      msg.invocation,
    ]);
    if (over !== undefined) {
      this.logger.warn({ functionId: over.id, workerId: worker.id, error: over.error }, 'registration refused');
      worker.send({ type: 'error', error: over.error });
      return;
    }
    this.release(worker, msg.id);
    const verdict = this.intercept({ kind: 'function', worker, message: msg });
    if (verdict !== undefined && 'refuse' in verdict) {
      this.logger.warn({ functionId: msg.id, workerId: worker.id, error: verdict.refuse }, 'registration refused');
      worker.send({ type: 'error', error: verdict.refuse });
      return;
    }
    if (verdict !== undefined) {
      // the same id registered again and claimed: the worker no longer executes it itself
      if (worker.functions.has(msg.id)) this.unregisterFunction(worker, { type: 'unregisterfunction', id: msg.id });
      worker.claims.set(msg.id, verdict.claim);
      return;
    }
    // the replica copies the four descriptive fields it keeps; the frame itself is not retained
    this.functions.register(msg.id, worker, msg);
    this.functionsChanged();
  }

  unregisterFunction(worker: Worker, msg: UnregisterFunction): void {
    if (this.release(worker, msg.id)) return;
    if (!worker.functions.has(msg.id)) return;
    this.functions.unregister(msg.id, worker);
    this.functionsChanged();
  }

  /** True when the trigger type may be registered; a refusal is sent to the worker. */
  admitTriggerType(worker: Worker, msg: RegisterTriggerType): boolean {
    const over = this.overLimits(worker, 'trigger type', msg.id, worker.triggerTypes.has(msg.id), [
      msg.description,
      msg.trigger_request_format,
      msg.call_request_format,
    ]);
    if (over !== undefined) {
      worker.send({ type: 'error', error: over.error });
      return false;
    }
    const verdict = this.intercept({ kind: 'trigger_type', worker, message: msg });
    if (verdict === undefined || !('refuse' in verdict)) return true;
    worker.send({ type: 'error', error: verdict.refuse });
    return false;
  }

  /** True when the trigger may be registered; a refusal reaches the worker as a failed registration result. */
  admitTrigger(worker: Worker, msg: RegisterTrigger): boolean {
    const over = this.overLimits(worker, 'trigger', msg.id, worker.triggers.has(msg.id), [
      msg.trigger_type,
      msg.function_id,
      msg.config,
      msg.metadata,
    ]);
    const verdict = over === undefined ? this.intercept({ kind: 'trigger', worker, message: msg }) : undefined;
    const refusal = over?.error ?? (verdict !== undefined && 'refuse' in verdict ? verdict.refuse : undefined);
    if (refusal === undefined) return true;
    worker.send({
      type: 'triggerregistrationresult',
      id: msg.id,
      trigger_type: msg.trigger_type,
      function_id: msg.function_id,
      error: refusal,
    });
    return false;
  }

  /**
   * Why a registration is refused by the limits, if it is: a new one past `maxPerWorker`, or one whose id and
   * `parts` take more than `maxBytes` characters of JSON.
   */
  private overLimits(
    worker: Worker,
    kind: string,
    id: string,
    known: boolean,
    parts: unknown[],
  ): { id: string; error: ErrorBody } | undefined {
    const { maxBytes, maxPerWorker } = this.limits;
    const shownId = id.length > 200 ? `${id.slice(0, 200)}…` : id;
    const held = worker.functions.size + worker.claims.size + worker.triggers.size + worker.triggerTypes.size;
    if (!known && held >= maxPerWorker) {
      const message =
        `${kind} '${shownId}' refused: this worker already holds ${held} functions, triggers and trigger types ` +
        `(max_registrations_per_worker ${maxPerWorker}); unregister those it no longer needs (a function or ` +
        'trigger registered per request is never freed until the worker disconnects)';
      return { id: shownId, error: errorBody(EngineErrorCode.RegistrationLimit, message) };
    }
    const chars = id.length + jsonChars(parts);
    if (chars > maxBytes) {
      const size = Number.isFinite(chars) ? `${chars} characters` : 'JSON nested too deeply to be written';
      const message =
        `${kind} '${shownId}' refused: its id, description, schemas, config and metadata take ${size}, past ` +
        `max_registration_bytes (${maxBytes}); keep large documents out of registrations`;
      return { id: shownId, error: errorBody(EngineErrorCode.RegistrationTooLarge, message) };
    }
    return undefined;
  }

  /** Releases every claim of a departing worker. */
  workerGone(worker: Worker): void {
    for (const [id, claim] of worker.claims) this.releaseClaim(id, claim);
    worker.claims.clear();
  }

  private intercept(registration: Registration): RegistrationVerdict {
    const interceptors = this.hooks.interceptors;
    for (let i = 0; i < interceptors.length; i++) {
      let verdict: RegistrationVerdict;
      try {
        verdict = interceptors[i]!(registration);
      } catch (err) {
        this.logger.error({ err, kind: registration.kind }, 'registration interceptor failed; ignoring it');
        continue;
      }
      if (verdict === undefined) continue;
      if ('refuse' in verdict || registration.kind === 'function') return verdict;
    }
    return undefined;
  }

  /** Returns true when `id` was claimed for `worker` (the claim is released). */
  private release(worker: Worker, id: string): boolean {
    const claim = worker.claims.get(id);
    if (claim === undefined) return false;
    worker.claims.delete(id);
    this.releaseClaim(id, claim);
    return true;
  }

  private releaseClaim(id: string, claim: { release(): void }): void {
    try {
      claim.release();
    } catch (err) {
      this.logger.error({ err, functionId: id }, 'releasing a claimed registration failed');
    }
  }
}

/** Characters of `parts` as JSON (a string counts its length); Infinity when one cannot be written as JSON. */
function jsonChars(parts: unknown[]): number {
  let n = 0;
  for (const part of parts) {
    if (part === undefined) continue;
    if (typeof part === 'string') {
      n += part.length;
      continue;
    }
    try {
      n += JSON.stringify(part)?.length ?? 0;
    } catch {
      return Infinity;
    }
  }
  return n;
}
