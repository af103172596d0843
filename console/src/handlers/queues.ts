/** Queue routes, over the queue worker's admin functions (`engine::queue::*`, `queue::*`). */
import { bodyObject, ConsoleInputError } from '../http-shape.js';
import type { Route } from '../route.js';

const topicOf = (params: Record<string, string>): string => {
  const topic = decodeURIComponent(params.topic ?? '');
  if (topic === '') throw new ConsoleInputError('the topic in the path must not be empty');
  return topic;
};

const messageIdOf = (params: Record<string, string>): string => decodeURIComponent(params.id ?? '');

export const queueRoutes: Route[] = [
  {
    name: 'queues_list',
    method: 'GET',
    path: '_console/queues',
    description:
      'Topics with their counts: waiting, active, delayed, dead, completed, failed (engine::queue::list_topics)',
    handler: (_req, ctx) => ctx.call('engine::queue::list_topics', {}),
  },
  {
    name: 'queue_detail',
    method: 'GET',
    path: '_console/queues/:topic',
    description: 'Counts of one topic (engine::queue::topic_stats)',
    handler: (req, ctx) => ctx.call('engine::queue::topic_stats', { topic: topicOf(req.path_params) }),
  },
  {
    name: 'queue_publish',
    method: 'POST',
    path: '_console/queues/:topic/publish',
    description: 'Publishes {data} to the topic (queue::publish)',
    handler: async (req, ctx) => {
      const body = bodyObject(req, '_console/queues/:topic/publish');
      const topic = topicOf(req.path_params);
      const result = await ctx.call('queue::publish', { topic, data: body.data ?? null });
      return { published: true, topic, result: result ?? null };
    },
  },
  {
    name: 'dlq_list',
    method: 'GET',
    path: '_console/dlq',
    description: 'Topics that hold dead letters (engine::queue::dlq_topics)',
    handler: (_req, ctx) => ctx.call('engine::queue::dlq_topics', {}),
  },
  {
    name: 'dlq_messages',
    method: 'POST',
    path: '_console/dlq/:topic/messages',
    description: 'Dead letters of a topic, paged: {offset?, limit?} (engine::queue::dlq_messages)',
    handler: async (req, ctx) => {
      const body = bodyObject(req, '_console/dlq/:topic/messages');
      const page: Record<string, unknown> = { topic: topicOf(req.path_params) };
      if (typeof body.offset === 'number') page.offset = body.offset;
      if (typeof body.limit === 'number') page.limit = body.limit;
      return ctx.call('engine::queue::dlq_messages', page);
    },
  },
  {
    name: 'dlq_redrive',
    method: 'POST',
    path: '_console/dlq/:topic/redrive',
    description: 'Moves every dead letter of the topic back into it (queue::redrive)',
    handler: (req, ctx) => ctx.call('queue::redrive', { queue: topicOf(req.path_params) }),
  },
  {
    name: 'dlq_redrive_message',
    method: 'POST',
    path: '_console/dlq/:topic/messages/:id/redrive',
    description: 'Moves one dead letter back (queue::redrive_message)',
    handler: (req, ctx) =>
      ctx.call('queue::redrive_message', { queue: topicOf(req.path_params), message_id: messageIdOf(req.path_params) }),
  },
  {
    name: 'dlq_discard_message',
    method: 'DELETE',
    path: '_console/dlq/:topic/messages/:id/discard',
    description: 'Deletes one dead letter for good (queue::discard_message)',
    handler: (req, ctx) =>
      ctx.call('queue::discard_message', { queue: topicOf(req.path_params), message_id: messageIdOf(req.path_params) }),
  },
];
