/**
 * How published messages travel between `publish` and the engines that have subscribers.
 *
 * The module tells the adapter which topics this engine has subscribers for (`subscribe` on the first binding of
 * a topic, `unsubscribe` after the last one) and hands it every `publish`. The adapter calls `deliver(topic, data)`
 * exactly once per message per engine that subscribed to the topic; the module then fans out to its local bindings.
 * So every subscriber binding receives each message once, whichever engine it was published on.
 *
 * What an adapter owns: its connections (Redis needs two: one in subscriber mode). `close()` is idempotent and
 * closes them; messages in flight at that moment may be dropped (pub/sub is at-most-once; use queues for more).
 */

import type { Logger } from 'pino';

/** `traceparent` (W3C) is the publisher's trace, carried along so deliveries join it; absent when unknown. */
export type Deliver = (topic: string, data: unknown, traceparent?: string) => void;

export interface PubSubAdapter {
  /** The adapter's config class, e.g. `modules::pubsub::KvserverAdapter`. */
  readonly name: string;
  start(deliver: Deliver, logger: Logger): Promise<void>;
  /** Rejects with `PublishError` when the message could not be handed over (e.g. Redis unreachable). */
  publish(topic: string, data: unknown, traceparent?: string): Promise<void>;
  subscribe(topic: string): Promise<void>;
  unsubscribe(topic: string): Promise<void>;
  close(): Promise<void>;
}
