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
import { ChannelReader, ChannelWriter, type StreamChannelRef, type SvcClient } from '@svc/sdk';
import { ChannelBatcher, type ChannelRefs } from './channel-batch.js';
import { ChannelPool } from './channel-pool.js';
import type { ChannelPort, RequestChannels } from './request-channels.js';

export function sdkChannelPort(client: SvcClient, engineUrl: string): ChannelPort {
  const batcher = new ChannelBatcher(client);
  const watchers = new Map<string, PooledChannels>();
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
  const shared: Shared = { batcher, watchers, engineUrl };
  const bodyChannel = async (prefill: Buffer | undefined): Promise<ChannelRefs> => {
    if (prefill === undefined) return streamed.take();
    if (prefill.length === 0) return ended.take();
    const [refs] = await batcher.create([{ owned: true, prefill: prefill.toString('base64') }]);
    return refs as ChannelRefs;
  };
  return {
    async open(prefill): Promise<RequestChannels> {
      const [request, response] = await Promise.all([bodyChannel(prefill), responses.take()]);
      return new PooledChannels(shared, request, response, prefill === undefined);
    },
    // The usual request (no body, or a streamed one) while the pools are stocked: no promise to wait for.
    openReady(prefill): RequestChannels | undefined {
      if (prefill !== undefined && prefill.length > 0) return undefined;
      const pool = prefill === undefined ? streamed : ended;
      const request = pool.takeReady();
      if (request === undefined) return undefined;
      const response = responses.takeReady();
      if (response === undefined) {
        batcher.remove2(request.writer, undefined);
        return undefined;
      }
      return new PooledChannels(shared, request, response, prefill === undefined);
    },
  };
}

interface Shared {
  batcher: ChannelBatcher;
  /** Response channels by id, until the handler opened the write end or the request ended. */
  watchers: Map<string, PooledChannels>;
  engineUrl: string;
}

/** One request's channels: a class rather than closures, as one is made per request. */
class PooledChannels implements RequestChannels {
  readonly requestBodyRef: StreamChannelRef;
  readonly responseRef: StreamChannelRef;
  readonly bodyWriter: ChannelWriter | undefined;
  private reader: ChannelReader | undefined;
  private listener: ((taken: boolean) => void) | undefined;
  /** Whether the handler took the write end, once known. */
  private taken: boolean | undefined;
  private released = false;

  constructor(
    private readonly shared: Shared,
    private readonly request: ChannelRefs,
    private readonly responseRefs: ChannelRefs,
    streamed: boolean,
  ) {
    this.requestBodyRef = request.reader;
    this.responseRef = responseRefs.writer;
    this.bodyWriter = streamed ? new ChannelWriter(shared.engineUrl, request.writer) : undefined;
    shared.watchers.set(responseRefs.reader.channel_id, this);
  }

  response(): ChannelReader {
    return (this.reader ??= new ChannelReader(this.shared.engineUrl, this.responseRefs.reader));
  }

  onResponseWriterTaken(listener: (taken: boolean) => void): void {
    if (this.taken !== undefined) listener(this.taken);
    else this.listener = listener;
  }

  settleTaken(taken: boolean): void {
    if (this.taken !== undefined) return;
    this.taken = taken;
    const listener = this.listener;
    this.listener = undefined;
    listener?.(taken);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    settle(this.shared.watchers, this.responseRefs.reader.channel_id, false);
    this.shared.batcher.remove2(this.request.writer, this.responseRefs.reader);
  }
}

function settle(watchers: Map<string, PooledChannels>, id: string | undefined, taken: boolean): void {
  if (id === undefined) return;
  const channels = watchers.get(id);
  if (channels === undefined) return;
  watchers.delete(id);
  channels.settleTaken(taken);
}

function channelIdOf(input: unknown): string | undefined {
  const id = (input as { channel_id?: unknown } | null)?.channel_id;
  return typeof id === 'string' ? id : undefined;
}
