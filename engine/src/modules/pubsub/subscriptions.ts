/**
 * The `subscribe` bindings of this engine, by topic. Tells the caller when a topic gains its first binding or loses
 * its last one, so the adapter only listens to topics someone here cares about.
 */
import type { TriggerBinding } from '@svc/sdk';

export interface SubscribeConfig {
  topic: string;
}

export class Subscriptions {
  private readonly byTopic = new Map<string, Map<string, TriggerBinding>>();
  private readonly topicOf = new Map<string, string>();

  /** Adds (or replaces) a binding; returns true when its topic had no binding before. */
  add(binding: TriggerBinding, topic: string): boolean {
    this.remove(binding.id);
    let bindings = this.byTopic.get(topic);
    const first = bindings === undefined;
    if (!bindings) this.byTopic.set(topic, (bindings = new Map()));
    bindings.set(binding.id, binding);
    this.topicOf.set(binding.id, topic);
    return first;
  }

  /** Removes a binding; returns its topic when that was the topic's last binding. */
  remove(bindingId: string): string | undefined {
    const topic = this.topicOf.get(bindingId);
    if (topic === undefined) return undefined;
    this.topicOf.delete(bindingId);
    const bindings = this.byTopic.get(topic);
    bindings?.delete(bindingId);
    if (bindings && bindings.size > 0) return undefined;
    this.byTopic.delete(topic);
    return topic;
  }

  bindings(topic: string): Iterable<TriggerBinding> {
    return this.byTopic.get(topic)?.values() ?? [];
  }

  topics(): string[] {
    return [...this.byTopic.keys()];
  }

  clear(): void {
    this.byTopic.clear();
    this.topicOf.clear();
  }
}

/** Validates a `subscribe` binding's config; the thrown message reaches the registering worker. */
export function readSubscribeConfig(config: unknown): SubscribeConfig {
  const topic = typeof config === 'object' && config !== null ? (config as { topic?: unknown }).topic : undefined;
  if (typeof topic !== 'string' || topic === '') {
    throw new Error(`subscribe trigger needs config.topic (a non-empty string), e.g. { "topic": "orders.created" }`);
  }
  return { topic };
}
