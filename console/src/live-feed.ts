/**
 * Live events for the pages, sent on the stream socket (`stream::send` on `svc:console`/`live`): `topology` when
 * workers or functions come and go (the engine's topology trigger types), `traces` when new traces are stored
 * (the observability worker's `trace` trigger type, when it runs), and `queues` when a queue's counts change
 * (polled, since queue workers announce no change). Without a stream worker the sends fail quietly and the pages
 * fall back to refreshing on their own.
 */
import { TriggerAction, type SvcClient } from '@svc/sdk';
import type { Logger } from 'pino';
import { LIVE_GROUP, LIVE_STREAM } from './options.js';

const QUEUE_POLL_MS = 2000;

export class LiveFeed {
  private timer: NodeJS.Timeout | undefined;
  private lastQueues = '';

  constructor(
    private readonly client: SvcClient,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.forward('engine::console::live_topology', 'topology', [
      'engine::workers-available',
      'engine::functions-available',
    ]);
    this.forward('engine::console::live_traces', 'traces', ['trace']);
    this.timer = setInterval(() => void this.pollQueues(), QUEUE_POLL_MS);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
  }

  private forward(functionId: string, type: string, triggerTypes: string[]): void {
    this.client.registerFunction(functionId, async (data: unknown) => this.send(type, data), {
      description: `Forwards ${triggerTypes.join(', ')} events to the console's live stream`,
      metadata: { console: true },
    });
    for (const triggerType of triggerTypes) {
      this.client.registerTrigger({ type: triggerType, function_id: functionId, config: {} });
    }
  }

  private async pollQueues(): Promise<void> {
    try {
      const topics = await this.client.trigger({
        function_id: 'engine::queue::list_topics',
        payload: {},
        timeoutMs: 5000,
      });
      const text = JSON.stringify(topics);
      if (text === this.lastQueues) return;
      this.lastQueues = text;
      await this.send('queues', topics);
    } catch {
      // No queue worker (or the engine is away): nothing to announce.
    }
  }

  private async send(type: string, data: unknown): Promise<void> {
    try {
      await this.client.trigger({
        function_id: 'stream::send',
        payload: { stream_name: LIVE_STREAM, group_id: LIVE_GROUP, type, data: data ?? null },
        action: TriggerAction.Void(),
      });
    } catch (err) {
      this.logger.debug({ err, type }, 'live event not sent');
    }
  }
}
