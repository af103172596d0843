/**
 * Data channels (engine module, always loaded like the `engine::*` functions): `engine::channels::create`
 * returns a writer and a reader ref of a new channel, and the engine serves both ends on its own port at
 * `GET /ws/channels/{channel_id}?key=<access_key>&dir=read|write`. svc extensions (additive, never needed by an
 * iii-sdk client): `owned: true` ties the channel to the calling worker, which removes it when the worker goes;
 * `prefill: <base64>` has the engine take the write end itself, holding those bytes and then ending (svc-http
 * hands an already-read request body over this way, without a socket of its own); `channels: [...]` creates
 * several in one call; `notify_function_id` has the engine call that function (void, `{channel_id}`) when the
 * write end is taken; `engine::channels::remove` drops channels whose key the caller holds (svc-http frees a
 * request's channels this way); `engine::channels::watch` resolves once a channel's write end is taken (svc-http
 * connects to a response channel only when the handler writes to it); `engine::channels::lease` and
 * `engine::channels::retire` give a worker a namespace of channels it names itself, made by the engine only when
 * an end is first asked for (svc-http's request channels: see channel-leases.ts).
 */
import type { EngineModule, ModuleContext, SocketRequest, SocketRouteAnswer } from '../module.js';
import {
  InvocationError,
  LEASE_CHANNELS_FUNCTION,
  mebibytes,
  RETIRE_CHANNELS_FUNCTION,
  TriggerAction,
  type SvcClient,
} from '@svc/sdk/core';
import { ModuleErrorCode } from '../../error-codes.js';
import type { Channel, ChannelDirection } from './channel.js';
import { badInput, batchOf, channelKey, channelSpec, objectInput, type ChannelSpec } from './channel-args.js';
import { ChannelLeases } from './channel-leases.js';
import {
  ChannelRegistry,
  DEFAULT_BUFFER_SIZE,
  DEFAULT_IDLE_TTL_MS,
  refsOf,
  type StreamChannelRef,
} from './channel-registry.js';

export const CHANNELS_MODULE = 'modules::channels::ChannelsModule';
export const CREATE_CHANNEL_FUNCTION = 'engine::channels::create';
export const REMOVE_CHANNEL_FUNCTION = 'engine::channels::remove';
export const WATCH_CHANNEL_FUNCTION = 'engine::channels::watch';
export const CHANNEL_ROUTE_PREFIX = '/ws/channels/';
/** A prefilled body is held as binary frames of this size (the SDK writers' frame size). */
const PREFILL_FRAME_BYTES = 64 * 1024;

export interface ChannelsModuleOptions {
  /** A channel whose end was never taken this long after creation is swept; default 5 minutes. */
  idleTtlMs?: number;
  /** How often the sweep runs; default 30 s (never longer than the TTL). */
  sweepIntervalMs?: number;
}

type Refs = { writer: StreamChannelRef; reader: StreamChannelRef };

export class ChannelsModule implements EngineModule {
  readonly name = CHANNELS_MODULE;
  readonly registry: ChannelRegistry;
  readonly leases: ChannelLeases;
  private readonly sweepIntervalMs: number;
  private readonly releases: Array<() => void> = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private client: SvcClient | undefined;

  constructor(options: ChannelsModuleOptions = {}) {
    const ttl = options.idleTtlMs ?? DEFAULT_IDLE_TTL_MS;
    this.registry = new ChannelRegistry(ttl);
    this.leases = new ChannelLeases(this.registry, (channel, fn) => this.notifyWhenWriterTaken(channel, fn));
    this.sweepIntervalMs = options.sweepIntervalMs ?? Math.min(30_000, ttl);
  }

  async start(ctx: ModuleContext): Promise<void> {
    const logger = ctx.logger;
    this.releases.push(ctx.engine.addSocketRoute(CHANNEL_ROUTE_PREFIX, (req) => this.route(req)));
    this.releases.push(
      ctx.hooks.observe({
        topology: (event) => {
          if (event.kind === 'worker' && event.event === 'worker_disconnected') {
            this.leases.revokeOwnedBy(event.workerId);
            const removed = this.registry.removeOwnedBy(event.workerId);
            if (removed > 0) logger.debug({ workerId: event.workerId, removed }, 'removed channels of a gone worker');
          }
        },
      }),
    );
    this.timer = setInterval(() => {
      const swept = this.registry.sweep(Date.now());
      if (swept > 0) logger.info({ swept }, 'swept data channels whose end was never taken');
    }, this.sweepIntervalMs);
    this.timer.unref();
    const client = (this.client = await ctx.connect('svc-channels'));
    this.releases.push(() => void client.shutdown().catch(() => undefined));
    client.registerFunction(CREATE_CHANNEL_FUNCTION, (input: unknown) => this.create(input), {
      description: 'Create a data channel; returns its writer and reader refs',
      request_format: {
        type: 'object',
        properties: { buffer_size: { type: 'integer', minimum: 0, maximum: 1024, default: DEFAULT_BUFFER_SIZE } },
      },
    });
    client.registerFunction(WATCH_CHANNEL_FUNCTION, (input: unknown) => this.watch(input), {
      description: 'Resolves {taken:true} once the write end of a channel is taken, {taken:false} if it goes first',
      metadata: { internal: true },
    });
    client.registerFunction(LEASE_CHANNELS_FUNCTION, (input: unknown) => this.lease(input), {
      description: 'Lease a namespace of data channels the caller names itself (made when an end is first opened)',
      metadata: { internal: true },
    });
    client.registerFunction(RETIRE_CHANNELS_FUNCTION, (input: unknown) => this.retire(input), {
      description: 'The numbers under `below` of a channel lease are over',
      metadata: { internal: true },
    });
    client.registerFunction(REMOVE_CHANNEL_FUNCTION, (input: unknown) => this.remove(input), {
      description: 'Remove a data channel (both ends are closed)',
      metadata: { internal: true },
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    for (const release of this.releases.splice(0).reverse()) release();
    this.registry.clear();
    this.leases.clear();
  }

  /** `{notify_function_id?}` → `{prefix, secret}`: a namespace of channels tied to the caller's connection. */
  private lease(input: unknown): { prefix: string; secret: string } {
    const fn = LEASE_CHANNELS_FUNCTION;
    const args = objectInput(input, fn);
    const caller = args['_caller_worker_id'];
    if (typeof caller !== 'string') throw badInput(fn, 'only a connected worker can hold a lease');
    return this.leases.grant(caller, channelSpec(args, fn).notify);
  }

  /** `{prefix, below}` (void): the lease's numbers under `below` are over. */
  private retire(input: unknown): { removed: number } {
    const fn = RETIRE_CHANNELS_FUNCTION;
    const args = objectInput(input, fn);
    const { prefix, below } = args;
    if (typeof prefix !== 'string') throw badInput(fn, 'prefix must be a string');
    if (typeof below !== 'number' || !Number.isSafeInteger(below) || below < 0) {
      throw badInput(fn, `below must be a non-negative integer, got ${JSON.stringify(below)}`);
    }
    const caller = args['_caller_worker_id'];
    return { removed: typeof caller === 'string' ? this.leases.retire(caller, prefix, below) : 0 };
  }

  /** One channel (`{writer, reader}`), or with `channels: [...]` (svc extension) several: `{channels: [...]}`. */
  private create(input: unknown): Refs | { channels: Refs[] } {
    const fn = CREATE_CHANNEL_FUNCTION;
    const args = objectInput(input, fn);
    const caller = typeof args['_caller_worker_id'] === 'string' ? args['_caller_worker_id'] : undefined;
    const batch = batchOf(args, fn);
    const specs =
      batch === undefined
        ? [channelSpec(args, fn)]
        : batch.map((entry, i) => channelSpec(entry, fn, `channels[${i}].`));
    this.roomForPrefills(specs);
    if (batch === undefined) return this.createOne(specs[0] as ChannelSpec, caller);
    return { channels: specs.map((spec) => this.createOne(spec, caller)) };
  }

  /**
   * Prefilled bytes are held until a reader takes them (or the channel expires), with nothing to pause: past the
   * engine's budget for channel data, a create that brings more is refused, whole, instead of growing the engine.
   */
  private roomForPrefills(specs: ChannelSpec[]): void {
    let bytes = 0;
    for (const spec of specs) bytes += spec.prefill?.length ?? 0;
    const memory = this.registry.memory;
    if (bytes === 0 || memory.held + bytes <= memory.budget) return;
    throw new InvocationError({
      code: ModuleErrorCode.ChannelCapacity,
      message:
        `the engine's channels hold ${mebibytes(memory.held)} of their ${mebibytes(memory.budget)} already, and this ` +
        `create brings ${mebibytes(bytes)} more to hold; retry once readers have taken what is waiting`,
      function_id: CREATE_CHANNEL_FUNCTION,
    });
  }

  private createOne(spec: ChannelSpec, caller: string | undefined): Refs {
    const channel = this.registry.create(spec.bufferSize, spec.owned ? caller : undefined, Date.now());
    if (spec.prefill !== undefined) channel.prefill(spec.prefill, PREFILL_FRAME_BYTES);
    if (spec.notify !== undefined) this.notifyWhenWriterTaken(channel, spec.notify);
    return refsOf(channel);
  }

  private notifyWhenWriterTaken(channel: Channel, functionId: string): void {
    void channel.whenWriterTaken().then((taken) => {
      if (!taken || !this.client) return;
      const payload = { channel_id: channel.id };
      this.client.trigger({ function_id: functionId, payload, action: TriggerAction.Void() }).catch(() => undefined);
    });
  }

  /** `{channel_id, access_key}` → `{removed: bool}`; with `channels: [...]` → `{removed: <count>}`. */
  private remove(input: unknown): { removed: boolean | number } {
    const fn = REMOVE_CHANNEL_FUNCTION;
    const args = objectInput(input, fn);
    const batch = batchOf(args, fn);
    if (batch === undefined) return { removed: this.removeOne(...channelKey(args, fn)) };
    const keys = batch.map((entry, i) => channelKey(entry, fn, `channels[${i}].`));
    return { removed: keys.filter(([id, key]) => this.removeOne(id, key)).length };
  }

  /** `{channel_id, access_key}` → `{taken}`: svc-http opens a response channel only once its handler writes. */
  private async watch(input: unknown): Promise<{ taken: boolean }> {
    const fn = WATCH_CHANNEL_FUNCTION;
    const channel = this.registry.find(...channelKey(objectInput(input, fn), fn));
    return { taken: channel ? await channel.whenWriterTaken() : false };
  }

  private removeOne(channelId: string, accessKey: string): boolean {
    const channel = this.registry.find(channelId, accessKey);
    channel?.remove();
    return channel !== undefined;
  }

  private route(req: SocketRequest): SocketRouteAnswer {
    const channelId = decodeURIComponent(req.path.slice(CHANNEL_ROUTE_PREFIX.length));
    const dir = req.query.get('dir');
    if (dir !== 'read' && dir !== 'write') {
      return { kind: 'refuse', status: 400, message: `dir must be "read" or "write", got ${JSON.stringify(dir)}` };
    }
    const key = req.query.get('key') ?? '';
    const channel = this.registry.find(channelId, key) ?? this.leases.open(channelId, key, Date.now());
    if (!channel) return { kind: 'refuse', status: 404, message: 'unknown channel or key' };
    const direction: ChannelDirection = dir;
    return { kind: 'accept', open: (socket) => channel.attach(direction, socket) };
  }
}
