/**
 * Function registrations, after the registration interceptors had their say: a claimed function is executed by
 * the module that claimed it (the worker's claim is released when it unregisters the id, registers it again, or
 * leaves); a refused one is reported to the worker; anything else becomes one replica of the function.
 */
import type { RegisterFunction, RegisterTrigger, RegisterTriggerType, UnregisterFunction } from '@svc/sdk';
import type { FunctionRegistry } from './function-registry.js';
import type { Hooks, Registration, RegistrationVerdict } from './hooks.js';
import type { CoreLogger } from './logger.js';
import type { Worker } from './worker.js';

export class Registrations {
  constructor(
    private readonly functions: FunctionRegistry,
    private readonly hooks: Hooks,
    private readonly logger: CoreLogger,
    private readonly functionsChanged: () => void,
  ) {}

  registerFunction(worker: Worker, msg: RegisterFunction): void {
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
    const verdict = this.intercept({ kind: 'trigger_type', worker, message: msg });
    if (verdict === undefined || !('refuse' in verdict)) return true;
    worker.send({ type: 'error', error: verdict.refuse });
    return false;
  }

  /** True when the trigger may be registered; a refusal reaches the worker as a failed registration result. */
  admitTrigger(worker: Worker, msg: RegisterTrigger): boolean {
    const verdict = this.intercept({ kind: 'trigger', worker, message: msg });
    if (verdict === undefined || !('refuse' in verdict)) return true;
    worker.send({
      type: 'triggerregistrationresult',
      id: msg.id,
      trigger_type: msg.trigger_type,
      function_id: msg.function_id,
      error: verdict.refuse,
    });
    return false;
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
