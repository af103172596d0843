/**
 * The request channels over the engine, through the SDK: both are owned by svc-http (the engine drops them if
 * svc-http goes). Response channels, streamed-body channels and the ended channels of bodiless requests come from
 * pools made ahead (no engine call on the request path); a body already read is prefilled by the engine in a
 * batched create (no socket for it). Both are removed when the response is over (batched, fire-and-forget), so
 * an end the handler never took does not wait for the engine's sweep. The response channel is read only once the
 * handler opened its write end (the engine calls svc-http's notify function, `notify_function_id`) or returned no
 * value: a handler that returns a value costs no socket and no extra frame.
 *
 * Once the engine granted svc-http a channel lease (`engine::channels::lease`), the response channel and the
 * ended body of a bodiless request are not made at all: svc-http names them (`leasedChannelId`)
 * and derives their key, and the engine makes one only if a socket comes for it. Nothing is created or removed
 * for a request whose handler returns a value; svc-http tells the engine, a few times a second, below which
 * number requests are over (`engine::channels::retire`), so a late writer is refused as a removed channel's was.
 * Without a lease (not granted yet, or an engine without leases) the pools serve.
 */
import { randomUUID } from 'node:crypto';
import {
  ChannelReader,
  ChannelWriter,
  InFlightMap,
  InFlightSet,
  isLeasePrefix,
  LEASE_CHANNELS_FUNCTION,
  leasedChannelBase,
  leasedChannelId,
  leasedChannelKey,
  MAX_LEASED_NUMBER,
  RETIRE_CHANNELS_FUNCTION,
  TriggerAction,
  type StreamChannelRef,
  type SvcClient,
} from '@svc/sdk';
import { ChannelBatcher, type ChannelRefs } from './channel-batch.js';
import { ChannelPool } from './channel-pool.js';
import { LeasedRef } from './payload.js';
import type { ChannelPort, RequestChannels } from './request-channels.js';

export function sdkChannelPort(client: SvcClient, engineUrl: string): ChannelPort {
  const batcher = new ChannelBatcher(client);
  // one entry per request, set and deleted: a Map whose table stays young (see InFlightMap) does not keep the
  // requests it held alive into the old generation
  const watchers = new InFlightMap<string, PooledChannels>();
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

  let lease: Lease | undefined;
  /** The connection generation a lease was last asked for under (asked once per connection). */
  let askedUnder = -1;
  const currentLease = (): Lease | undefined => {
    const now = generation();
    if (lease !== undefined && lease.generation === now) {
      if (!lease.exhausted) return lease;
      // every number of this lease is used: ask for a new one (the pools serve meanwhile)
      lease = undefined;
      askedUnder = -1;
    }
    if (askedUnder !== now) {
      askedUnder = now;
      client
        .trigger<{ prefix?: unknown; secret?: unknown }>({
          function_id: LEASE_CHANNELS_FUNCTION,
          payload: { notify_function_id: notifyId },
        })
        .then(
          (answer) => {
            const { prefix, secret } = answer ?? {};
            // the prefix in the form the engine makes it (`leasePrefix`): the ids named under it need no escaping
            if (!isLeasePrefix(prefix) || typeof secret !== 'string') return;
            if (generation() !== now) return;
            lease = new Lease(client, prefix, secret, now);
          },
          // An engine without leases, or a lost connection: the pools serve, and the lease is asked for again
          // in a while (at once under the next connection).
          () => {
            setTimeout(() => {
              if (askedUnder === now) askedUnder = -1;
            }, LEASE_RETRY_MS).unref();
          },
        );
    }
    return undefined;
  };
  // Asked at once, so that the first requests already find it.
  currentLease();

  return {
    async open(prefill): Promise<RequestChannels> {
      const leased = currentLease();
      if (leased !== undefined) {
        const request = prefill !== undefined && prefill.length === 0 ? undefined : await bodyChannel(prefill);
        return new PooledChannels(shared, request, undefined, prefill === undefined, leased);
      }
      const [request, response] = await Promise.all([bodyChannel(prefill), responses.take()]);
      return new PooledChannels(shared, request, response, prefill === undefined, undefined);
    },
    // The usual request (no body, or a streamed one) while the pools are stocked: no promise to wait for.
    openReady(prefill): RequestChannels | undefined {
      if (prefill !== undefined && prefill.length > 0) return undefined;
      const leased = currentLease();
      if (leased !== undefined) {
        if (prefill !== undefined) return new PooledChannels(shared, undefined, undefined, false, leased);
        const request = streamed.takeReady();
        return request === undefined ? undefined : new PooledChannels(shared, request, undefined, true, leased);
      }
      const pool = prefill === undefined ? streamed : ended;
      const request = pool.takeReady();
      if (request === undefined) return undefined;
      const response = responses.takeReady();
      if (response === undefined) {
        batcher.remove2(request.writer, undefined);
        return undefined;
      }
      return new PooledChannels(shared, request, response, prefill === undefined, undefined);
    },
  };
}

const LEASE_RETRY_MS = 5_000;

/** How often, at most, svc-http tells the engine below which number a lease's requests are over. */
const RETIRE_EVERY_MS = 20;

/** svc-http's channel lease: names the channels of its requests and retires the numbers of requests that ended. */
class Lease {
  private next = 0;
  /** The numbers of the requests not over yet, oldest first (a Set keeps insertion order). */
  private readonly open = new InFlightSet<number>();
  private retired = 0;
  private scheduled = false;

  constructor(
    private readonly client: SvcClient,
    readonly prefix: string,
    private readonly secret: string,
    readonly generation: number,
  ) {}

  /** Every number this lease can name was used. */
  get exhausted(): boolean {
    return this.next > MAX_LEASED_NUMBER;
  }

  /** The next number, with the key of its channels; the number stays open until `ended(n)`. */
  number(): { n: number; key: string } {
    const n = this.next++;
    this.open.add(n);
    return { n, key: leasedChannelKey(this.secret, leasedChannelBase(this.prefix, n)) };
  }

  ended(n: number): void {
    this.open.delete(n);
    if (this.scheduled) return;
    this.scheduled = true;
    setTimeout(() => this.retire(), RETIRE_EVERY_MS).unref();
  }

  private retire(): void {
    this.scheduled = false;
    const oldest: number | undefined = this.open.values().next().value;
    const below = oldest ?? this.next;
    if (below <= this.retired || (this.client as { connectionEpoch?: number }).connectionEpoch !== this.generation) {
      return;
    }
    this.retired = below;
    this.client
      .trigger({
        function_id: RETIRE_CHANNELS_FUNCTION,
        payload: { prefix: this.prefix, below },
        action: TriggerAction.Void(),
      })
      .catch(() => undefined);
  }
}

interface Shared {
  batcher: ChannelBatcher;
  /** Response channels by id, until the handler opened the write end or the request ended. */
  watchers: InFlightMap<string, PooledChannels>;
  engineUrl: string;
}

/**
 * One request's channels: a class rather than closures, as one is made per request. Under a lease the response
 * channel (and, without `request`, the ended body) are named, not made.
 */
class PooledChannels implements RequestChannels {
  readonly requestBodyRef: StreamChannelRef;
  readonly responseRef: StreamChannelRef;
  readonly bodyWriter: ChannelWriter | undefined;
  /** The request's number under `lease` (-1 without one). */
  readonly leasedNumber: number = -1;
  private readonly responseRefs: ChannelRefs;
  private reader: ChannelReader | undefined;
  private listener: ((taken: boolean) => void) | undefined;
  /** Whether the handler took the write end, once known. */
  private taken: boolean | undefined;
  private released = false;

  constructor(
    private readonly shared: Shared,
    /** The body channel when it was made (streamed or prefilled); undefined: the lease's ended body. */
    private readonly request: ChannelRefs | undefined,
    response: ChannelRefs | undefined,
    streamed: boolean,
    private readonly lease: Lease | undefined,
  ) {
    if (lease !== undefined) {
      const { n, key } = lease.number();
      this.leasedNumber = n;
      const id = leasedChannelId(lease.prefix, n, 'r');
      this.responseRefs = { writer: new LeasedRef(id, key, 'write'), reader: new LeasedRef(id, key, 'read') };
      this.requestBodyRef = request?.reader ?? new LeasedRef(leasedChannelId(lease.prefix, n, 'b'), key, 'read');
    } else {
      this.responseRefs = response as ChannelRefs;
      this.requestBodyRef = (request as ChannelRefs).reader;
    }
    this.responseRef = this.responseRefs.writer;
    this.bodyWriter =
      streamed && request !== undefined ? new ChannelWriter(shared.engineUrl, request.writer) : undefined;
    shared.watchers.set(this.responseRefs.reader.channel_id, this);
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
    const taken = this.taken === true;
    settle(this.shared.watchers, this.responseRefs.reader.channel_id, false);
    const { lease, request, shared } = this;
    if (lease === undefined) {
      shared.batcher.remove2((request as ChannelRefs).writer, this.responseRefs.reader);
      return;
    }
    // A leased response channel exists only if an end was opened (else retiring the number is enough).
    if (taken || this.reader !== undefined) shared.batcher.remove2(this.responseRefs.reader, request?.writer);
    else if (request !== undefined) shared.batcher.remove2(request.writer, undefined);
    lease.ended(this.leasedNumber);
  }
}

function settle(watchers: InFlightMap<string, PooledChannels>, id: string | undefined, taken: boolean): void {
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
