/**
 * The `subscribe` bindings of this engine, by topic. Tells the caller when a topic gains its first binding or loses
 * its last one, so the adapter only listens to topics someone here cares about. Each topic's bindings are also kept
 * as an array, rebuilt when the topic's bindings change, so a publish walks an array and allocates nothing.
 */
import type { TriggerBinding } from '@svc/sdk';

export interface SubscribeConfig {
  topic: string;
}

/** A binding as a publish delivers to it: its condition function read once, when it was registered. */
export interface Delivery extends TriggerBinding {
  readonly conditionFunctionId: string | undefined;
}

const NONE: readonly Delivery[] = [];

interface Topic {
  readonly byId: Map<string, Delivery>;
  list: readonly Delivery[];
}

export class Subscriptions {
  private readonly byTopic = new Map<string, Topic>();
  private readonly topicOf = new Map<string, string>();

  /** Adds (or replaces) a binding; returns true when its topic had no binding before. */
  add(binding: Delivery, topic: string): boolean {
    this.remove(binding.id);
    let entry = this.byTopic.get(topic);
    const first = entry === undefined;
    if (!entry) this.byTopic.set(topic, (entry = { byId: new Map<string, Delivery>(), list: NONE }));
    entry.byId.set(binding.id, binding);
    entry.list = [...entry.byId.values()];
    this.topicOf.set(binding.id, topic);
    return first;
  }

  /** Removes a binding; returns its topic when that was the topic's last binding. */
  remove(bindingId: string): string | undefined {
    const topic = this.topicOf.get(bindingId);
    if (topic === undefined) return undefined;
    this.topicOf.delete(bindingId);
    const entry = this.byTopic.get(topic);
    if (entry === undefined) return topic;
    entry.byId.delete(bindingId);
    if (entry.byId.size > 0) {
      entry.list = [...entry.byId.values()];
      return undefined;
    }
    this.byTopic.delete(topic);
    return topic;
  }

  /** The topic's bindings now (a new array after every change, so a fan-out in progress is not affected). */
  bindings(topic: string): readonly Delivery[] {
    return this.byTopic.get(topic)?.list ?? NONE;
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
