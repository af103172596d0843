/**
 * `BrokerAdapter`: queues in RabbitMQ (amqplib). Each queue Q is a durable main queue `<prefix>.Q`, one delay queue
 * per retry `<prefix>.Q.retry.<ms>ms` (message TTL = backoff × 2^(n-1), dead-lettered back into the main queue) and a
 * dead-letter queue `<prefix>.Q.dead`. Publishes wait for publisher confirms; consumers ack manually, so a message
 * whose handler did not finish is redelivered by the broker. A retry or dead-letter is published (and confirmed)
 * before the original is acked, so a crash in between duplicates the message rather than losing it. The connection
 * recovers on its own; topology and consumers are re-created on every reconnect.
 *
 * RabbitMQ keeps no count of the messages acked away, so the `completed` and `failed` totals are counted by this
 * process's consumers (a success acked; a message moved to dead letters) and start from zero when it starts. With
 * several svc-queue processes on the same queues, each reports what its own consumers did.
 */
import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { InFlightSet } from '@svc/sdk';
import type { Channel, ChannelModel, ConfirmChannel, ConsumeMessage, Message, RecoveringChannelModel } from 'amqplib';
import {
  H_ATTEMPTS,
  H_ENQUEUED_AT,
  H_ERROR,
  H_FAILED_AT,
  ownHeaders,
  parsePayload,
  safeAck,
  unavailable,
  type Payload,
} from './rabbitmq-messages.js';
import { readDeadLetters, settleCount, takeDeadLetters } from './rabbitmq-dead-letters.js';
import {
  brokerNames,
  declareRegistry,
  declareTopology,
  readRegistry,
  registryName,
  type BrokerNames,
} from './rabbitmq-topology.js';
import type {
  DeadLetterPage,
  ErrorInfo,
  JobHandler,
  JobInput,
  QueueBackend,
  QueueOverride,
  QueueSettings,
  TopicStats,
} from './types.js';
import { emptyStats, resolveSettings, toErrorInfo } from './types.js';
import { QueueErrorCode } from '../error-codes.js';

export interface BrokerOptions {
  amqp_url: string;
  prefix: string;
  max_attempts: number;
  backoff_ms: number;
  prefetch_count: number;
  queue_mode: 'standard' | 'quorum';
  queue_configs?: Record<string, QueueOverride> | undefined;
}

export class BrokerAdapter implements QueueBackend {
  readonly name = 'BrokerAdapter';
  private conn: RecoveringChannelModel | null = null;
  /** The live connection of the moment (replaced on every reconnect); channels are opened on it. */
  private model: ChannelModel | null = null;
  private pub: ConfirmChannel | null = null;
  private readonly declared = new Set<string>();
  /** Queue names this process has put in the shared registry (kept across reconnects). */
  private readonly registered = new Set<string>();
  private readonly handlers = new Map<string, JobHandler>();
  private readonly inFlight = new Map<string, number>();
  /** Per queue: messages this process's consumers completed and moved to dead letters. */
  private readonly totals = new Map<string, { completed: number; failed: number }>();
  private readonly running = new InFlightSet<Promise<void>>();
  private consumerChannels: Channel[] = [];
  private closing: Promise<void> | null = null;
  private readonly defaults: QueueSettings;

  constructor(private readonly options: BrokerOptions) {
    this.defaults = {
      maxAttempts: options.max_attempts,
      backoffMs: options.backoff_ms,
      concurrency: options.prefetch_count,
      mode: 'concurrent',
    };
  }

  async start(): Promise<void> {
    this.conn = await amqp.connect(this.options.amqp_url, {
      recovery: { initialDelay: 200, maxDelay: 5000, initialMaxRetries: 3, setup: (m: ChannelModel) => this.setup(m) },
    });
    this.conn.on('error', () => undefined);
  }

  settings(queue: string): QueueSettings {
    return resolveSettings(this.defaults, this.options.queue_configs?.[queue]);
  }

  async enqueue(queue: string, input: JobInput): Promise<string> {
    if (this.closing)
      throw Object.assign(new Error('svc-queue is shutting down'), { code: QueueErrorCode.QueueClosed });
    const id = input.id ?? randomUUID();
    if (Buffer.byteLength(id) > 255) {
      throw Object.assign(new Error('a message id on RabbitMQ is at most 255 bytes'), {
        code: QueueErrorCode.InvalidArguments,
      });
    }
    const names = await this.ensure(queue);
    const payload: Payload = {
      function_id: input.function_id,
      data: input.data ?? null,
      traceparent: input.traceparent ?? null,
      baggage: input.baggage ?? null,
      condition_function_id: input.condition_function_id ?? null,
    };
    await this.publish(names.main, Buffer.from(JSON.stringify(payload)), id, {
      [H_ATTEMPTS]: 0,
      [H_ENQUEUED_AT]: Date.now(),
    });
    return id;
  }

  async consume(queue: string, handler: JobHandler): Promise<void> {
    if (this.handlers.has(queue) || this.closing) return;
    this.handlers.set(queue, handler);
    await this.ensure(queue);
    await this.startConsumer(queue, handler);
  }

  async listTopics(): Promise<TopicStats[]> {
    const shared = await this.withChannel((ch) => readRegistry(ch, this.options.prefix));
    const names = new Set([...this.declared, ...shared, ...Object.keys(this.options.queue_configs ?? {})]);
    return Promise.all([...names].sort().map((n) => this.topicStats(n)));
  }

  async topicStats(queue: string): Promise<TopicStats> {
    const names = await this.existing(queue);
    if (names === undefined) return emptyStats(queue);
    return this.withChannel(async (ch) => {
      const main = await ch.checkQueue(names.main);
      const dead = await ch.checkQueue(names.dead);
      let delayed = 0;
      for (const r of names.retries) delayed += (await ch.checkQueue(r.name)).messageCount;
      const active = this.inFlight.get(queue) ?? 0;
      const { completed, failed } = this.totals.get(queue) ?? emptyStats(queue);
      return { queue, waiting: main.messageCount, active, delayed, dead: dead.messageCount, completed, failed };
    });
  }

  async listDeadLetters(queue: string, offset: number, limit: number): Promise<DeadLetterPage> {
    const names = await this.existing(queue);
    if (names === undefined) return { queue, offset, limit, total: 0, messages: [] };
    const page = await this.withChannel((ch) => readDeadLetters(ch, queue, names.dead, offset, limit));
    await this.withChannel((ch) => settleCount(ch, names.dead, page.total));
    return page;
  }

  async redrive(queue: string): Promise<number> {
    return this.takeDead(queue, () => 'redrive');
  }

  async redriveMessage(queue: string, id: string): Promise<boolean> {
    return (await this.takeDead(queue, (m) => (m.properties.messageId === id ? 'redrive' : 'keep'), true)) > 0;
  }

  async discardMessage(queue: string, id: string): Promise<boolean> {
    return (await this.takeDead(queue, (m) => (m.properties.messageId === id ? 'discard' : 'keep'), true)) > 0;
  }

  close(graceMs = 5000): Promise<void> {
    this.closing ??= (async () => {
      for (const ch of this.consumerChannels) await ch.close().catch(() => undefined);
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((r) => (timer = setTimeout(r, graceMs)));
      await Promise.race([Promise.all(this.running), grace]);
      clearTimeout(timer);
      await this.conn?.close().catch(() => undefined);
    })();
    return this.closing;
  }

  /** Runs after every (re)connect: a publishing channel, the topology, the consumers. */
  private async setup(model: ChannelModel): Promise<void> {
    this.model = model;
    model.on('error', () => undefined);
    await this.openPublisher(model);
    await this.withChannel((ch) => declareRegistry(ch, this.options.prefix, this.options.queue_mode));
    this.consumerChannels = [];
    const queues = [...this.declared];
    this.declared.clear();
    for (const q of queues) await this.ensure(q);
    for (const [q, h] of this.handlers) await this.startConsumer(q, h);
  }

  /** The confirm channel every publish goes through; reopened if the broker closes it on a live connection. */
  private async openPublisher(model: ChannelModel): Promise<void> {
    const pub = await model.createConfirmChannel();
    pub.on('error', () => undefined);
    pub.on('close', () => {
      if (this.pub === pub) this.pub = null;
      if (!this.closing && this.model === model) {
        setTimeout(() => void this.openPublisher(model).catch(() => undefined), 100).unref();
      }
    });
    this.pub = pub;
  }

  private async ensure(queue: string): Promise<BrokerNames> {
    const s = this.settings(queue);
    const names = brokerNames(this.options.prefix, queue, s);
    if (this.declared.has(queue)) return names;
    await this.withChannel((ch) => declareTopology(ch, names, s, this.options.queue_mode));
    this.declared.add(queue);
    if (!this.registered.has(queue)) {
      await this.publish(registryName(this.options.prefix), Buffer.from(queue, 'utf8'), queue, {});
      this.registered.add(queue);
    }
    return names;
  }

  /**
   * The names of a queue that exists on the broker, or undefined: reading a queue (its counts, its dead letters)
   * never creates it. Declaring would leave durable queues behind for any name a caller tried, and list the name in
   * the registry every svc-queue process consumes from.
   */
  private async existing(queue: string): Promise<BrokerNames | undefined> {
    const names = brokerNames(this.options.prefix, queue, this.settings(queue));
    if (this.declared.has(queue)) return names;
    const found = await this.withChannel((ch) =>
      ch.checkQueue(names.main).then(
        () => true,
        () => false, // 404: the broker closes this throwaway channel
      ),
    );
    return found ? names : undefined;
  }

  private async startConsumer(queue: string, handler: JobHandler): Promise<void> {
    if (!this.model) return;
    const s = this.settings(queue);
    const names = brokerNames(this.options.prefix, queue, s);
    const ch = await this.model.createChannel();
    ch.on('error', () => undefined);
    await ch.prefetch(s.concurrency);
    this.consumerChannels.push(ch);
    await ch.consume(names.main, (msg) => {
      if (!msg) return;
      const p = this.deliver(ch, queue, names, s, msg, handler);
      this.running.add(p);
      void p.finally(() => this.running.delete(p));
    });
  }

  private async deliver(
    ch: Channel,
    queue: string,
    names: BrokerNames,
    s: QueueSettings,
    msg: ConsumeMessage,
    handler: JobHandler,
  ): Promise<void> {
    const headers = msg.properties.headers ?? {};
    const attempt = Number(headers[H_ATTEMPTS] ?? 0) + 1;
    if (msg.fields.redelivered) {
      // A consumer took this message and went away without acking it: that delivery counts as an attempt, so a
      // message that kills its consumer every time still ends in dead letters instead of looping forever.
      const stalled = { code: QueueErrorCode.JobStalled, message: 'the consumer stopped during an attempt' };
      return this.failed(ch, queue, names, s, msg, attempt, stalled);
    }
    const payload = parsePayload(msg.content);
    this.inFlight.set(queue, (this.inFlight.get(queue) ?? 0) + 1);
    const abort = new AbortController();
    try {
      await handler(
        {
          id: String(msg.properties.messageId ?? ''),
          queue,
          function_id: payload.function_id,
          data: payload.data,
          traceparent: payload.traceparent,
          baggage: payload.baggage,
          condition_function_id: payload.condition_function_id,
          attempt,
          maxAttempts: s.maxAttempts,
          enqueuedAt: Number(headers[H_ENQUEUED_AT] ?? 0),
        },
        abort.signal,
      );
      if (safeAck(ch, msg)) this.count(queue, 'completed');
    } catch (err) {
      await this.failed(ch, queue, names, s, msg, attempt, toErrorInfo(err));
    } finally {
      this.inFlight.set(queue, (this.inFlight.get(queue) ?? 1) - 1);
    }
  }

  private count(queue: string, kind: 'completed' | 'failed'): void {
    const t = this.totals.get(queue) ?? { completed: 0, failed: 0 };
    t[kind] += 1;
    this.totals.set(queue, t);
  }

  private async failed(
    ch: Channel,
    queue: string,
    names: BrokerNames,
    s: QueueSettings,
    msg: ConsumeMessage,
    attempt: number,
    error: ErrorInfo,
  ): Promise<void> {
    const headers = { ...ownHeaders(msg), [H_ATTEMPTS]: attempt };
    const id = String(msg.properties.messageId ?? '');
    try {
      const last = attempt >= s.maxAttempts;
      if (last) {
        const dead = { ...headers, [H_ERROR]: JSON.stringify(error), [H_FAILED_AT]: Date.now() };
        await this.publish(names.dead, msg.content, id, dead);
      } else {
        const retry = names.retries[attempt - 1] ?? names.retries[names.retries.length - 1];
        await this.publish(retry?.name ?? names.main, msg.content, id, headers);
      }
      // Counted when acked: a lost ack brings the message back, and its redelivery is dead-lettered and counted.
      if (safeAck(ch, msg) && last) this.count(queue, 'failed');
    } catch {
      // Could not hand the message on: leave it to the broker (redelivered when this channel closes).
      try {
        ch.nack(msg, false, true);
      } catch {
        // channel already gone: the broker requeues it
      }
    }
  }

  private publish(queue: string, content: Buffer, id: string, headers: Record<string, unknown>): Promise<void> {
    const pub = this.pub;
    if (!pub) return Promise.reject(unavailable());
    return new Promise<void>((resolve, reject) => {
      try {
        pub.sendToQueue(queue, content, { persistent: true, messageId: id, headers }, (err: unknown) =>
          err ? reject(unavailable(err)) : resolve(),
        );
      } catch (err) {
        reject(unavailable(err));
      }
    });
  }

  /** Takes dead letters one by one: `redrive` republishes to the main queue, `discard` drops, `keep` leaves it. */
  private async takeDead(
    queue: string,
    decide: (m: Message) => 'redrive' | 'discard' | 'keep',
    firstOnly = false,
  ): Promise<number> {
    const names = await this.existing(queue);
    if (names === undefined) return 0;
    const requeue = (msg: Message) =>
      this.publish(names.main, msg.content, String(msg.properties.messageId ?? ''), {
        ...ownHeaders(msg),
        [H_ATTEMPTS]: 0,
      });
    const r = await this.withChannel((ch) => takeDeadLetters(ch, names.dead, decide, requeue, firstOnly));
    await this.withChannel((ch) => settleCount(ch, names.dead, r.total - r.taken));
    return r.taken;
  }

  /** A short-lived channel: a failed declare or check closes a channel, so admin work never uses a shared one. */
  private async withChannel<T>(fn: (ch: Channel) => Promise<T>): Promise<T> {
    if (!this.model) throw unavailable();
    const ch = await this.model.createChannel().catch((err: unknown) => {
      throw unavailable(err);
    });
    ch.on('error', () => undefined);
    try {
      return await fn(ch);
    } finally {
      await ch.close().catch(() => undefined);
    }
  }
}
