/**
 * The provider side of trigger types: the engine asks this worker to activate (`registertrigger`) or remove
 * (`unregistertrigger`) bindings of the types it registered. Every `registertrigger` is answered with a
 * `triggerregistrationresult`. Active bindings are remembered so that `unregisterTrigger` gets the full binding,
 * so that a repeated delivery of the same binding does not activate it twice, and so that all of them can be
 * deactivated when the connection drops (the engine re-delivers them after the reconnect).
 */
import type { Logger } from 'pino';
import type {
  ErrorBody,
  RegisterTrigger,
  TriggerRegistrationResult,
  UnregisterTrigger,
  WorkerToEngine,
} from '../protocol.js';
import type { TriggerBinding } from '../types.js';
import type { Registrations } from './registrations.js';

interface ActiveBinding {
  typeId: string;
  binding: TriggerBinding;
  /** Identity of the binding's content, to tell a re-delivery from a changed binding. */
  key: string;
}

export interface ProviderHost {
  readonly logger: Logger;
  sendQueued(frame: WorkerToEngine): void;
}

export class TriggerProviders {
  private readonly active = new Map<string, ActiveBinding>();

  constructor(
    private readonly host: ProviderHost,
    private readonly registrations: Registrations,
  ) {}

  async onRegisterTrigger(msg: RegisterTrigger): Promise<void> {
    const type = this.registrations.triggerTypes.get(msg.trigger_type);
    if (type === undefined) {
      this.reply(msg, { code: 'trigger_type_not_found', message: 'Trigger type not found' });
      return;
    }
    const binding: TriggerBinding = { id: msg.id, function_id: msg.function_id, config: msg.config };
    if (msg.metadata !== undefined) binding.metadata = msg.metadata;
    const key = bindingKey(msg);
    const existing = this.active.get(msg.id);
    if (existing !== undefined && existing.key === key && existing.typeId === msg.trigger_type) {
      this.reply(msg, undefined);
      return;
    }
    if (existing !== undefined) await this.deactivate(existing);
    try {
      await type.handler.registerTrigger(binding);
      this.active.set(msg.id, { typeId: msg.trigger_type, binding, key });
      this.reply(msg, undefined);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.host.logger.warn({ trigger_id: msg.id, trigger_type: msg.trigger_type, err: message }, 'binding refused');
      this.reply(msg, { code: 'trigger_registration_failed', message });
    }
  }

  async onUnregisterTrigger(msg: UnregisterTrigger): Promise<void> {
    const existing = this.active.get(msg.id);
    if (existing !== undefined) {
      await this.deactivate(existing);
      return;
    }
    // Not active here (its activation failed, or it predates this process): tell the handler anyway.
    const type = msg.trigger_type !== undefined ? this.registrations.triggerTypes.get(msg.trigger_type) : undefined;
    if (type === undefined) return;
    await this.callUnregister(msg.trigger_type ?? '', type.handler.unregisterTrigger.bind(type.handler), {
      id: msg.id,
      function_id: '',
      config: undefined,
    });
  }

  /** The user removed a trigger type locally: deactivate its bindings. */
  async dropType(typeId: string, handler: { unregisterTrigger(b: TriggerBinding): unknown }): Promise<void> {
    for (const a of [...this.active.values()]) {
      if (a.typeId !== typeId) continue;
      this.active.delete(a.binding.id);
      await this.callUnregister(typeId, handler.unregisterTrigger.bind(handler), a.binding);
    }
  }

  /**
   * The connection to the engine is gone: the engine parks every binding of our types as pending and re-delivers
   * the live ones when we re-register the types, so deactivate all of them now. This keeps the provider's view
   * equal to the engine's (a binding removed while we were away never stays active here).
   */
  async deactivateAll(): Promise<void> {
    // Forget them all first, so that a re-delivery arriving meanwhile activates afresh instead of being deduplicated.
    const all = [...this.active.values()];
    this.active.clear();
    for (const a of all) await this.callHandlerUnregister(a);
  }

  /** Ids of the bindings active on this provider (for tests and introspection). */
  activeIds(): string[] {
    return [...this.active.keys()];
  }

  private async deactivate(a: ActiveBinding): Promise<void> {
    this.active.delete(a.binding.id);
    await this.callHandlerUnregister(a);
  }

  private async callHandlerUnregister(a: ActiveBinding): Promise<void> {
    const type = this.registrations.triggerTypes.get(a.typeId);
    if (type === undefined) return;
    await this.callUnregister(a.typeId, type.handler.unregisterTrigger.bind(type.handler), a.binding);
  }

  private async callUnregister(
    typeId: string,
    fn: (b: TriggerBinding) => unknown,
    binding: TriggerBinding,
  ): Promise<void> {
    try {
      await fn(binding);
    } catch (err) {
      this.host.logger.error({ err, trigger_id: binding.id, trigger_type: typeId }, 'unregisterTrigger failed');
    }
  }

  private reply(msg: RegisterTrigger, error: ErrorBody | undefined): void {
    const frame: TriggerRegistrationResult = {
      type: 'triggerregistrationresult',
      id: msg.id,
      trigger_type: msg.trigger_type,
      function_id: msg.function_id,
    };
    if (error !== undefined) frame.error = error;
    this.host.sendQueued(frame);
  }
}

function bindingKey(msg: RegisterTrigger): string {
  try {
    return JSON.stringify([msg.function_id, msg.config, msg.metadata]);
  } catch {
    return `${Math.random()}`;
  }
}
