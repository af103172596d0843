/**
 * The request channels over the engine, through the SDK: both are owned by svc-http (the engine drops them if
 * svc-http goes). Response channels, streamed-body channels and the ended channels of bodiless requests come from
 * pools made ahead (no engine call on the request path); a body already read is prefilled by the engine in a
 * batched create (no socket for it). Both are removed when the response is over (batched, fire-and-forget), so
 * an end the handler never took does not wait for the engine's sweep. The response channel is read only once the
 * handler opened its write end (the engine calls svc-http's notify function, `notify_function_id`) or returned no
 * value: a handler that returns a value costs no socket and no extra frame.
 */
import { randomUUID } from 'node:crypto';
import { ChannelReader, ChannelWriter, type SvcClient } from '@svc/sdk';
import { ChannelBatcher, type ChannelRefs } from './channel-batch.js';
import { ChannelPool } from './channel-pool.js';
import type { ChannelPort, RequestChannels } from './request-channels.js';

export function sdkChannelPort(client: SvcClient, engineUrl: string): ChannelPort {
  const batcher = new ChannelBatcher(client);
  const watchers = new Map<string, (taken: boolean) => void>();
  // The engine calls this (void) when a handler opens the write end of one of our response channels.
  const notifyId = `svc-http::response-opened::${randomUUID()}`;
  client.registerFunction(notifyId, (input: unknown) => settle(watchers, channelIdOf(input), true), {
    description: 'svc-http: a response channel was opened by its handler',
    metadata: { internal: true },
  });
  // The SDK client counts lost connections (`connectionEpoch`); a client without the counter never drops entries.
  const generation = (): number => (client as { connectionEpoch?: number }).connectionEpoch ?? 0;
  const responses = new ChannelPool(batcher, { owned: true, notify_function_id: notifyId }, { generation });
  const streamed = new ChannelPool(batcher, { owned: true }, { generation });
  const ended = new ChannelPool(batcher, { owned: true, prefill: '' }, { generation });
  const bodyChannel = async (prefill: Buffer | undefined): Promise<ChannelRefs> => {
    if (prefill === undefined) return streamed.take();
    if (prefill.length === 0) return ended.take();
    const [refs] = await batcher.create([{ owned: true, prefill: prefill.toString('base64') }]);
    return refs as ChannelRefs;
  };
  const channelsOf = (request: ChannelRefs, response: ChannelRefs, streamed: boolean): RequestChannels => {
    const id = response.reader.channel_id;
    const taken = new Promise<boolean>((resolve) => watchers.set(id, resolve));
    let reader: ChannelReader | undefined;
    return {
      requestBodyRef: request.reader,
      responseRef: response.writer,
      bodyWriter: streamed ? new ChannelWriter(engineUrl, request.writer) : undefined,
      // built on first use: most handlers return a value and never need it
      get response() {
        return (reader ??= new ChannelReader(engineUrl, response.reader));
      },
      responseWriterTaken: () => taken,
      release: once(() => {
        settle(watchers, id, false);
        batcher.remove([request.writer, response.reader]);
      }),
    };
  };
  return {
    async open(prefill): Promise<RequestChannels> {
      const [request, response] = await Promise.all([bodyChannel(prefill), responses.take()]);
      return channelsOf(request, response, prefill === undefined);
    },
    // The usual request (no body, or a streamed one) while the pools are stocked: no promise to wait for.
    openReady(prefill): RequestChannels | undefined {
      if (prefill !== undefined && prefill.length > 0) return undefined;
      const pool = prefill === undefined ? streamed : ended;
      const request = pool.takeReady();
      if (request === undefined) return undefined;
      const response = responses.takeReady();
      if (response === undefined) {
        batcher.remove([request.writer]);
        return undefined;
      }
      return channelsOf(request, response, prefill === undefined);
    },
  };
}

function settle(watchers: Map<string, (taken: boolean) => void>, id: string | undefined, taken: boolean): void {
  if (id === undefined) return;
  watchers.get(id)?.(taken);
  watchers.delete(id);
}

function channelIdOf(input: unknown): string | undefined {
  const id = (input as { channel_id?: unknown } | null)?.channel_id;
  return typeof id === 'string' ? id : undefined;
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
