/**
 * The trigger-type provider flow (docs/protocol.md, "3.2 Registering a trigger" and "3.7 Providing a trigger type"):
 * bindings go to every provider of their type (now, or when a provider appears), refusals go back to the worker that
 * registered the binding, and a replay after a reconnect (same trigger ids) is idempotent.
 */
import type { CoreLogger } from './logger.js';
import type {
  RegisterTrigger,
  RegisterTriggerType,
  TriggerRegistrationResult,
  UnregisterTrigger,
  UnregisterTriggerType,
} from '@svc/sdk';
import { sameBinding, type Binding, type TriggerRegistry } from './trigger-registry.js';
import type { Worker } from './worker.js';

export class TriggerFlows {
  constructor(
    private readonly registry: TriggerRegistry,
    private readonly logger: CoreLogger,
    private readonly changed: () => void,
  ) {}

  registerType(worker: Worker, msg: RegisterTriggerType): void {
    const info = {
      description: msg.description,
      trigger_request_format: msg.trigger_request_format,
      call_request_format: msg.call_request_format,
    };
    const isNewProvider = this.registry.addProvider(msg.id, worker, info);
    // The same connection registering its type again is a replace: it already holds every binding.
    if (isNewProvider) for (const binding of this.registry.bindingsOf(msg.id)) this.deliver(worker, binding);
    this.changed();
  }

  unregisterType(worker: Worker, msg: UnregisterTriggerType): void {
    if (this.registry.removeProvider(msg.id, worker)) this.changed();
  }

  registerTrigger(worker: Worker, msg: RegisterTrigger): void {
    const candidate = {
      id: msg.id,
      triggerType: msg.trigger_type,
      functionId: msg.function_id,
      config: msg.config,
      metadata: msg.metadata,
    };
    const existing = this.registry.bindings.get(msg.id);
    if (existing !== undefined && sameBinding(existing, candidate)) {
      // A replay (same id, same content): keep what providers hold, only move ownership.
      if (existing.owner !== worker) {
        existing.owner.triggers.delete(existing.id);
        existing.owner = worker;
        worker.triggers.add(existing.id);
      }
      return;
    }
    if (existing !== undefined) this.removeBinding(existing);
    const binding: Binding = { ...candidate, owner: worker, lastError: undefined, registeredAtMs: Date.now() };
    this.registry.add(binding);
    const providers = this.registry.providersOf(binding.triggerType);
    if (providers === undefined || providers.size === 0) {
      this.logger.debug(
        { triggerId: binding.id, triggerType: binding.triggerType },
        'trigger pending: no worker provides its trigger type yet; it activates when one registers the type',
      );
    } else {
      for (const provider of providers) this.deliver(provider, binding);
    }
    this.changed();
  }

  unregisterTrigger(worker: Worker, msg: UnregisterTrigger): void {
    const binding = this.registry.bindings.get(msg.id);
    if (binding === undefined || binding.owner !== worker) return;
    this.removeBinding(binding);
    this.changed();
  }

  /** A provider's answer. Errors are forwarded to the binding's owner; successes only clear the last error. */
  registrationResult(worker: Worker, msg: TriggerRegistrationResult): void {
    const binding = this.registry.bindings.get(msg.id);
    if (binding === undefined) return;
    if (!this.registry.providersOf(binding.triggerType)?.has(worker)) return;
    if (!msg.error) return;
    binding.lastError = msg.error;
    this.logger.warn(
      { triggerId: binding.id, triggerType: binding.triggerType, error: msg.error },
      'trigger registration refused by its provider',
    );
    binding.owner.send({
      type: 'triggerregistrationresult',
      id: binding.id,
      trigger_type: binding.triggerType,
      function_id: binding.functionId,
      error: msg.error,
    });
  }

  /** Removes a departing worker's bindings (telling providers) and its provider roles (bindings become pending). */
  workerGone(worker: Worker): void {
    const changed = worker.triggers.size > 0 || worker.triggerTypes.size > 0;
    for (const id of [...worker.triggers]) {
      const binding = this.registry.bindings.get(id);
      if (binding !== undefined && binding.owner === worker) this.removeBinding(binding);
    }
    for (const typeId of [...worker.triggerTypes]) this.registry.removeProvider(typeId, worker);
    worker.triggers.clear();
    if (changed) this.changed();
  }

  private removeBinding(binding: Binding): void {
    this.registry.remove(binding.id);
    const providers = this.registry.providersOf(binding.triggerType);
    if (providers === undefined) return;
    for (const provider of providers) {
      provider.send({ type: 'unregistertrigger', id: binding.id, trigger_type: binding.triggerType });
    }
  }

  private deliver(provider: Worker, binding: Binding): void {
    binding.lastError = undefined;
    const frame: RegisterTrigger = {
      type: 'registertrigger',
      id: binding.id,
      trigger_type: binding.triggerType,
      function_id: binding.functionId,
      config: binding.config,
    };
    if (binding.metadata !== undefined) frame.metadata = binding.metadata;
    provider.send(frame);
  }
}
