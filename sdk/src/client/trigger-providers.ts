/**
 * The provider side of trigger types: the engine asks this worker to activate (`registertrigger`) or remove
 * (`unregistertrigger`) bindings of the types it registered. Every `registertrigger` is answered with a
 * `triggerregistrationresult`. Active bindings are remembered so that `unregisterTrigger` gets the full binding,
 * so that a repeated delivery of the same binding does not activate it twice, and so that all of them can be
 * deactivated when the connection drops (the engine re-delivers them after the reconnect).
 *
 * The handler calls for one binding id run one after the other, in arrival order (an unregister that is still
 * running when the re-delivery arrives finishes first), while different bindings proceed independently.
 */
import type { Logger } from 'pino';
import type {
  ErrorBody,
  RegisterTrigger,
  TriggerRegistrationResult,
  UnregisterTrigger,
  WorkerToEngine,
} from '../protocol.js';
import type { TriggerBinding, TriggerTypeHandler } from '../types.js';
import type { Registrations } from './registrations.js';
import { ErrorCode } from '../error-codes.js';

interface ActiveBinding {
  typeId: string;
  handler: TriggerTypeHandler;
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
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly host: ProviderHost,
    private readonly registrations: Registrations,
  ) {}

  onRegisterTrigger(msg: RegisterTrigger): Promise<void> {
    return this.serialize(msg.id, () => this.register(msg));
  }

  onUnregisterTrigger(msg: UnregisterTrigger): Promise<void> {
    return this.serialize(msg.id, () => this.unregister(msg));
  }

  /** The user removed a trigger type locally: deactivate its bindings. */
  async dropType(typeId: string): Promise<void> {
    const mine = [...this.active.values()].filter((a) => a.typeId === typeId);
    await Promise.all(mine.map((a) => this.serialize(a.binding.id, () => this.deactivate(a.binding.id))));
  }

  /**
   * The connection to the engine is gone: the engine parks every binding of our types as pending and re-delivers
   * the live ones when we re-register the types, so deactivate all of them now. This keeps the provider's view
   * equal to the engine's (a binding removed while we were away never stays active here).
   */
  async deactivateAll(): Promise<void> {
    const ids = [...this.active.keys()];
    await Promise.all(ids.map((id) => this.serialize(id, () => this.deactivate(id))));
  }

  /** Ids of the bindings active on this provider (for tests and introspection). */
  activeIds(): string[] {
    return [...this.active.keys()];
  }

  private async register(msg: RegisterTrigger): Promise<void> {
    const type = this.registrations.triggerTypes.get(msg.trigger_type);
    if (type === undefined) {
      this.reply(msg, { code: ErrorCode.TriggerTypeNotFound, message: 'Trigger type not found' });
      return;
    }
    const binding: TriggerBinding = { id: msg.id, function_id: msg.function_id, config: msg.config };
    if (msg.metadata !== undefined) binding.metadata = msg.metadata;
    const key = bindingKey(msg);
    const existing = this.active.get(msg.id);
    if (existing !== undefined && existing.key === key && existing.handler === type.handler) {
      this.reply(msg, undefined);
      return;
    }
    if (existing !== undefined) await this.deactivate(msg.id);
    try {
      await type.handler.registerTrigger(binding);
      this.active.set(msg.id, { typeId: msg.trigger_type, handler: type.handler, binding, key });
      this.reply(msg, undefined);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.host.logger.warn({ trigger_id: msg.id, trigger_type: msg.trigger_type, err: message }, 'binding refused');
      this.reply(msg, { code: ErrorCode.TriggerRegistrationFailed, message });
    }
  }

  private async unregister(msg: UnregisterTrigger): Promise<void> {
    if (this.active.has(msg.id)) return this.deactivate(msg.id);
    // Not active here (its activation failed, or it predates this process): tell the handler anyway.
    const type = msg.trigger_type !== undefined ? this.registrations.triggerTypes.get(msg.trigger_type) : undefined;
    if (type === undefined) return;
    await this.callUnregister(msg.trigger_type ?? '', type.handler, { id: msg.id, function_id: '', config: undefined });
  }

  private async deactivate(id: string): Promise<void> {
    const a = this.active.get(id);
    if (a === undefined) return;
    this.active.delete(id);
    await this.callUnregister(a.typeId, a.handler, a.binding);
  }

  private async callUnregister(typeId: string, handler: TriggerTypeHandler, binding: TriggerBinding): Promise<void> {
    try {
      await handler.unregisterTrigger(binding);
    } catch (err) {
      this.host.logger.error({ err, trigger_id: binding.id, trigger_type: typeId }, 'unregisterTrigger failed');
    }
  }

  /** Runs `work` after every earlier operation on binding `id` has finished. */
  private serialize(id: string, work: () => Promise<void>): Promise<void> {
    const previous = this.chains.get(id) ?? Promise.resolve();
    const next = previous.then(work).catch((err: unknown) => {
      this.host.logger.error({ err, trigger_id: id }, 'trigger provider operation failed');
    });
    this.chains.set(id, next);
    void next.then(() => {
      if (this.chains.get(id) === next) this.chains.delete(id);
    });
    return next;
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
    return JSON.stringify([msg.trigger_type, msg.function_id, msg.config, msg.metadata]);
  } catch {
    return `unkeyed:${Math.random()}`;
  }
}
