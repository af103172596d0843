/**
 * `modules::pubsub::LocalAdapter`: in-process fan-out inside one engine; messages never leave it.
 * Owns nothing but the delivery callback; `close()` is idempotent and stops delivery.
 */
import type { Deliver, PubSubAdapter } from './types.js';

export class LocalAdapter implements PubSubAdapter {
  readonly name = 'modules::pubsub::LocalAdapter';
  private deliver: Deliver | undefined;
  private readonly topics = new Set<string>();

  async start(deliver: Deliver, _logger?: unknown): Promise<void> {
    this.deliver = deliver;
  }

  async publish(topic: string, data: unknown, traceparent?: string): Promise<void> {
    if (this.topics.has(topic)) this.deliver?.(topic, data, traceparent);
  }

  async subscribe(topic: string): Promise<void> {
    this.topics.add(topic);
  }

  async unsubscribe(topic: string): Promise<void> {
    this.topics.delete(topic);
  }

  async close(): Promise<void> {
    this.deliver = undefined;
    this.topics.clear();
  }
}
