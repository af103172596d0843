/**
 * Change notifications: a worker connected, disconnected or reported metadata; the set of functions or trigger
 * registrations changed. Listeners run synchronously and must be cheap (the introspection module coalesces
 * bursts before firing `engine::functions-available`); a throwing listener is logged, never propagated.
 */
import type { Logger } from 'pino';

export type WorkerEventName = 'worker_connected' | 'worker_disconnected' | 'worker_metadata_updated';

export type TopologyEvent =
  { kind: 'worker'; event: WorkerEventName; workerId: string } | { kind: 'functions' } | { kind: 'triggers' };

export type TopologyListener = (event: TopologyEvent) => void;

export class Topology {
  private readonly listeners = new Set<TopologyListener>();

  constructor(private readonly logger: Logger) {}

  /** Subscribes; returns the unsubscribe function. */
  on(listener: TopologyListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: TopologyEvent): void {
    if (this.listeners.size === 0) return;
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.logger.error({ err, event }, 'topology listener failed');
      }
    }
  }
}
