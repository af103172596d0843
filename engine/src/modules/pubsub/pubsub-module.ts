/**
 * `modules::pubsub::PubSubModule`: named events. Function `publish {topic, data}` and trigger type `subscribe`
 * (`config.topic`): every subscriber binding receives `data` itself as its payload (no metadata), once per publish.
 *
 * It reaches the core only as a worker would, through one in-process SDK client (`ctx.connect('pubsub')`).
 * `publish` resolves once the adapter has taken the message; deliveries are fire-and-forget (void) calls, so a slow
 * subscriber never slows the publisher. Errors: `topic_not_set` (no topic), `publish_failed` (adapter down),
 * `serialization_error` (data that cannot be written as JSON, such as arrays nested thousands of levels deep).
 */
import {
  childTraceparent,
  conditionFunctionId,
  InvocationError,
  TriggerAction,
  type HandlerContext,
  type SvcClient,
  type TriggerBinding,
} from '@svc/sdk/core';
import { sendEncoded } from '../../transport/shared-payload.js';
import type { Logger } from 'pino';
import type { EngineModule, ModuleContext } from '../module.js';
import type { PubSubAdapter } from './adapters/types.js';
import { readSubscribeConfig, Subscriptions, type Delivery } from './subscriptions.js';
import { ModuleErrorCode } from '../../error-codes.js';
import { dataText } from './data-text.js';

export const PUBLISH_FUNCTION_ID = 'publish';
const VOID = TriggerAction.Void();
export const SUBSCRIBE_TRIGGER_TYPE = 'subscribe';

export class PubSubModule implements EngineModule {
  readonly name = 'modules::pubsub::PubSubModule';
  private client: SvcClient | undefined;
  private logger: Logger | undefined;
  private readonly subscriptions = new Subscriptions();
  private closed = false;

  constructor(private readonly adapter: PubSubAdapter) {}

  async start(ctx: ModuleContext): Promise<void> {
    this.logger = ctx.logger.child({ module: 'pubsub' });
    await this.adapter.start((topic, data, traceparent) => this.deliver(topic, data, traceparent), this.logger);
    const client = (this.client = await ctx.connect('pubsub'));
    client.registerFunction(
      PUBLISH_FUNCTION_ID,
      (input: unknown, context: HandlerContext) => this.publish(input, context),
      {
        description: 'Publishes { topic, data } to every subscribe trigger on the topic',
        request_format: { type: 'object', properties: { topic: { type: 'string' }, data: {} }, required: ['topic'] },
      },
    );
    client.registerTriggerType(
      {
        id: SUBSCRIBE_TRIGGER_TYPE,
        description: 'Runs a function for every message published on config.topic',
        trigger_request_format: {
          type: 'object',
          properties: { topic: { type: 'string' }, condition_function_id: { type: 'string' } },
          required: ['topic'],
        },
      },
      {
        registerTrigger: (binding) => this.addBinding(binding),
        unregisterTrigger: (binding) => this.removeBinding(binding.id),
      },
    );
    this.logger.info({ adapter: this.adapter.name }, 'pubsub ready');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.subscriptions.clear();
    await this.client?.shutdown().catch(() => undefined);
    await this.adapter.close();
  }

  private async publish(input: unknown, context: HandlerContext): Promise<void> {
    const { topic, data } = (typeof input === 'object' && input !== null ? input : {}) as {
      topic?: unknown;
      data?: unknown;
    };
    if (typeof topic !== 'string' || topic === '') {
      throw new InvocationError({
        code: ModuleErrorCode.TopicNotSet,
        message: 'publish needs a topic: { topic: "<name>", data }',
      });
    }
    await this.adapter.publish(topic, data, context.traceparent);
  }

  private async addBinding(binding: TriggerBinding): Promise<void> {
    const { topic } = readSubscribeConfig(binding.config);
    // No metadata on deliveries (the protocol's pubsub passes none); the condition function still applies.
    const delivery: Delivery = {
      id: binding.id,
      function_id: binding.function_id,
      config: binding.config,
      conditionFunctionId: conditionFunctionId(binding.config),
    };
    if (!this.subscriptions.add(delivery, topic)) return;
    try {
      await this.adapter.subscribe(topic);
    } catch (err) {
      // Refuse the binding rather than keep one that would never receive anything.
      this.subscriptions.remove(binding.id);
      const why = err instanceof Error ? err.message : String(err);
      throw new Error(`cannot subscribe to topic '${topic}' (${this.adapter.name}): ${why}`);
    }
  }

  private async removeBinding(bindingId: string): Promise<void> {
    const lastOfTopic = this.subscriptions.remove(bindingId);
    if (lastOfTopic === undefined) return;
    await this.adapter.unsubscribe(lastOfTopic).catch((err: unknown) => {
      this.logger?.warn({ err, topic: lastOfTopic }, 'pubsub: unsubscribe failed; messages for it are dropped here');
    });
  }

  private deliver(topic: string, data: unknown, traceparent: string | undefined): void {
    const client = this.client;
    if (!client || this.closed) return;
    const bindings = this.subscriptions.bindings(topic);
    if (bindings.length === 0) return;
    // Every delivery of one message joins the publisher's trace (a new one when the publisher sent none).
    const trace = childTraceparent(traceparent);
    // One JSON text of `data` serves every subscriber's frame; nothing here changes `data` during the fan-out. It
    // is made before the first delivery, so data that cannot be written fails the publish (the local adapter
    // delivers within it) instead of every delivery after the publisher was told it went out.
    const fanOut = (): void => {
      for (const binding of bindings) {
        // A binding with a condition goes through fireTrigger (condition first); the others are one void call.
        const sent =
          binding.conditionFunctionId === undefined
            ? client.trigger({
                function_id: binding.function_id,
                payload: data,
                action: VOID,
                traceparent: trace,
                firedBy: binding.id,
              })
            : client.fireTrigger(binding, data, { action: VOID, traceparent: trace });
        sent.catch((err: unknown) => this.deliveryFailed(err, topic, binding.function_id));
      }
    };
    if (typeof data === 'object' && data !== null) sendEncoded(data, dataText(topic, data), fanOut);
    else fanOut();
  }

  private deliveryFailed(err: unknown, topic: string, functionId: string): void {
    this.logger?.warn({ err, topic, function_id: functionId }, 'pubsub delivery failed');
  }
}
