/**
 * Cross-engine triggers: a binding registered by a worker on another engine, whose trigger type no worker there
 * provides but one here does, is registered here too (by the cluster module's client), so this engine's provider
 * serves it; each call it fires is routed back to the function wherever it lives. The mirror follows both sides:
 * it is removed when the binding, its engine or the local provider goes away.
 */
import type { SvcClient, TriggerRef } from '@svc/sdk';
import type { Logger } from 'pino';
import type { PeerDirectory } from './peers.js';

export class TriggerMirror {
  private readonly mirrored = new Map<string, TriggerRef>();

  constructor(
    private readonly client: SvcClient,
    private readonly logger: Logger,
  ) {}

  /** `localTypes`: trigger types a socket worker of this engine provides. */
  sync(peers: PeerDirectory, localTypes: ReadonlySet<string>): void {
    const wanted = new Map<string, { type: string; function_id: string; config: unknown; metadata?: unknown }>();
    for (const { engineId, trigger, typeProvidedThere } of peers.triggers()) {
      if (typeProvidedThere || !localTypes.has(trigger.trigger_type)) continue;
      wanted.set(`${engineId}/${trigger.id}`, {
        type: trigger.trigger_type,
        function_id: trigger.function_id,
        config: trigger.config,
        ...(trigger.metadata !== undefined ? { metadata: trigger.metadata } : {}),
      });
    }
    for (const [key, ref] of [...this.mirrored]) {
      if (wanted.has(key)) continue;
      ref.unregister();
      this.mirrored.delete(key);
      this.logger.debug({ binding: key }, 'removed a mirrored trigger');
    }
    for (const [key, registration] of wanted) {
      if (this.mirrored.has(key)) continue;
      this.mirrored.set(key, this.client.registerTrigger(registration));
      this.logger.debug({ binding: key, type: registration.type }, 'mirrored a trigger of another engine');
    }
  }

  clear(): void {
    for (const ref of this.mirrored.values()) ref.unregister();
    this.mirrored.clear();
  }
}
