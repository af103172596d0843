/**
 * Dead-letter work on RabbitMQ, where a queue cannot be browsed: messages are taken with `get` (unacked), and
 * whatever is not acked goes back, in order, when the caller closes the channel.
 */
import type { Channel, Message } from 'amqplib';
import { toDeadLetter } from './rabbitmq-messages.js';
import type { DeadLetterPage } from './types.js';

/**
 * Messages returned by closing a channel reappear in the queue a moment later; waits (up to 2 s) until the queue
 * holds at least `expected` again, so the next admin call sees them.
 */
export async function settleCount(ch: Channel, queue: string, expected: number): Promise<void> {
  for (let i = 0; i < 40; i++) {
    if ((await ch.checkQueue(queue)).messageCount >= expected) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function readDeadLetters(
  ch: Channel,
  queue: string,
  dead: string,
  offset: number,
  limit: number,
): Promise<DeadLetterPage> {
  const total = (await ch.checkQueue(dead)).messageCount;
  const messages = [];
  for (let i = 0; i < offset + limit; i++) {
    const msg = await ch.get(dead, { noAck: false });
    if (!msg) break;
    if (i >= offset) messages.push(toDeadLetter(queue, msg));
  }
  return { queue, total, offset, limit, messages };
}

/**
 * Goes through the dead letters: `redrive` republishes one to its queue (confirmed) before acking it, `discard`
 * acks it away, `keep` leaves it. Returns how many were redriven or discarded.
 */
export async function takeDeadLetters(
  ch: Channel,
  dead: string,
  decide: (m: Message) => 'redrive' | 'discard' | 'keep',
  requeue: (m: Message) => Promise<void>,
  firstOnly: boolean,
): Promise<{ taken: number; total: number }> {
  const total = (await ch.checkQueue(dead)).messageCount;
  let n = 0;
  for (let i = 0; i < total; i++) {
    const msg = await ch.get(dead, { noAck: false });
    if (!msg) break;
    const what = decide(msg);
    if (what === 'keep') continue;
    if (what === 'redrive') await requeue(msg);
    ch.ack(msg);
    n++;
    if (firstOnly) break;
  }
  return { taken: n, total };
}
