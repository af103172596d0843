/** Queue names and declarations of the RabbitMQ backend (see rabbitmq.ts). */
import type { Channel } from 'amqplib';
import type { QueueSettings } from './types.js';
import { backoffDelay } from './types.js';

export interface BrokerNames {
  main: string;
  dead: string;
  /** `retries[n-1]` holds messages waiting to be delivered for attempt n+1. */
  retries: { name: string; ttl: number }[];
}

export function brokerNames(prefix: string, queue: string, s: QueueSettings): BrokerNames {
  const main = `${prefix}.${queue}`;
  const retries = [];
  for (let n = 1; n < s.maxAttempts; n++) {
    const ttl = backoffDelay(s.backoffMs, n);
    retries.push({ name: `${main}.retry.${ttl}ms`, ttl });
  }
  return { main, dead: `${main}.dead`, retries };
}

/**
 * Declares the queues. Retry queues are named by their delay, so a changed `backoff_ms` declares new queues instead
 * of clashing with the arguments of existing ones.
 */
export async function declareTopology(
  ch: Channel,
  names: BrokerNames,
  s: QueueSettings,
  mode: 'standard' | 'quorum',
): Promise<void> {
  const type = mode === 'quorum' ? 'quorum' : 'classic';
  const mainArgs: Record<string, unknown> = { 'x-queue-type': type };
  if (s.mode === 'fifo') mainArgs['x-single-active-consumer'] = true;
  await ch.assertQueue(names.main, { durable: true, arguments: mainArgs });
  await ch.assertQueue(names.dead, { durable: true, arguments: { 'x-queue-type': type } });
  for (const r of names.retries) {
    const args: Record<string, unknown> = {
      'x-queue-type': type,
      'x-message-ttl': r.ttl,
      'x-dead-letter-exchange': '',
      'x-dead-letter-routing-key': names.main,
    };
    // Quorum queues dead-letter at most once unless told otherwise; retries must not be dropped.
    if (mode === 'quorum')
      Object.assign(args, { 'x-dead-letter-strategy': 'at-least-once', 'x-overflow': 'reject-publish' });
    await ch.assertQueue(r.name, { durable: true, arguments: args });
  }
}

/**
 * The queue registry: a durable queue holding one message per queue name, so every svc-queue process on the broker
 * can find (and consume) queues another process created. Reading takes the messages unacked and closing the
 * channel puts them back; duplicate names are acked away while reading.
 */
export const registryName = (prefix: string): string => `${prefix}.__svc_queues`;

export async function declareRegistry(ch: Channel, prefix: string, mode: 'standard' | 'quorum'): Promise<void> {
  const type = mode === 'quorum' ? 'quorum' : 'classic';
  await ch.assertQueue(registryName(prefix), { durable: true, arguments: { 'x-queue-type': type } });
}

/** Reads every registered queue name. `ch` must be closed afterwards (that returns the messages). */
export async function readRegistry(ch: Channel, prefix: string): Promise<string[]> {
  const names = new Set<string>();
  for (let i = 0; i < 10_000; i++) {
    const msg = await ch.get(registryName(prefix), { noAck: false });
    if (!msg) break;
    const name = msg.content.toString('utf8');
    if (names.has(name)) ch.ack(msg);
    else names.add(name);
  }
  return [...names];
}
