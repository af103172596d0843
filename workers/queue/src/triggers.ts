/**
 * The queue-message trigger type, registered as `durable:subscriber` (the iii name; README.md, "Trigger types") and as
 * `queue`. A binding's config names its topic (`topic`, or `queue` as an alias) and optionally a
 * `condition_function_id`. Publishing to a topic enqueues one job per subscriber in the topic's queue, so each
 * subscriber gets its own retries and dead letters. The engine hands every binding to every svc-queue process, so any
 * of them can fan a message out.
 */
import type { SvcClient, TriggerBinding } from '@svc/sdk';
import type { Consumers } from './consumers.js';

export const TRIGGER_TYPES = ['durable:subscriber', 'queue'] as const;

export interface Subscriber {
  bindingId: string;
  function_id: string;
  condition_function_id: string | null;
}

export class Subscriptions {
  private readonly byTopic = new Map<string, Map<string, Subscriber>>();
  private readonly topicOf = new Map<string, string>();

  add(topic: string, s: Subscriber): void {
    this.remove(s.bindingId);
    let subs = this.byTopic.get(topic);
    if (!subs) this.byTopic.set(topic, (subs = new Map<string, Subscriber>()));
    subs.set(s.bindingId, s);
    this.topicOf.set(s.bindingId, topic);
  }

  remove(bindingId: string): void {
    const topic = this.topicOf.get(bindingId);
    if (topic === undefined) return;
    this.topicOf.delete(bindingId);
    const subs = this.byTopic.get(topic);
    subs?.delete(bindingId);
    if (subs?.size === 0) this.byTopic.delete(topic);
  }

  of(topic: string): Subscriber[] {
    return [...(this.byTopic.get(topic)?.values() ?? [])];
  }
}

/** Reads a binding's topic; throws (refusing the binding) when it has none. */
export function bindingTopic(config: unknown): { topic: string; condition: string | null } {
  const c = (config && typeof config === 'object' ? config : {}) as Record<string, unknown>;
  const topic = typeof c.topic === 'string' && c.topic ? c.topic : typeof c.queue === 'string' ? c.queue : '';
  if (!topic) throw new Error("a queue trigger needs 'topic' (or 'queue') in its config");
  const cond = typeof c.condition_function_id === 'string' && c.condition_function_id ? c.condition_function_id : null;
  return { topic, condition: cond };
}

export function registerQueueTriggerTypes(client: SvcClient, subs: Subscriptions, consumers: Consumers): void {
  for (const id of TRIGGER_TYPES) {
    client.registerTriggerType(
      { id, description: 'Runs the function for every message published to a queue topic, with retries' },
      {
        async registerTrigger(binding: TriggerBinding) {
          const { topic, condition } = bindingTopic(binding.config);
          subs.add(topic, {
            bindingId: binding.id,
            function_id: binding.function_id,
            condition_function_id: condition,
          });
          await consumers.ensure(topic);
        },
        unregisterTrigger(binding: TriggerBinding) {
          subs.remove(binding.id);
        },
      },
    );
  }
}
