/**
 * Channel calls of the requests that arrive in the same tick go to the engine together: one
 * `engine::channels::create` (svc's batched form) for every channel asked for, one fire-and-forget
 * `engine::channels::remove` for every channel freed. A burst of requests then costs a few engine calls, not two
 * per request. A call carries at most `MAX_CHANNELS` channels and about `MAX_PREFILL_BYTES` of prefilled bodies.
 */
import {
  CREATE_CHANNEL_FUNCTION,
  isChannelRef,
  REMOVE_CHANNEL_FUNCTION,
  TriggerAction,
  type StreamChannelRef,
  type SvcClient,
} from '@svc/sdk';

export interface ChannelRefs {
  writer: StreamChannelRef;
  reader: StreamChannelRef;
}

/** One channel to create: `{owned, prefill?}` as `engine::channels::create` takes it. */
export type ChannelSpec = { owned: true; prefill?: string; notify_function_id?: string };

const MAX_CHANNELS = 64;
const MAX_PREFILL_BYTES = 4 * 1024 * 1024;

interface Ask {
  specs: ChannelSpec[];
  resolve(refs: ChannelRefs[]): void;
  reject(err: unknown): void;
}

export class ChannelBatcher {
  private asks: Ask[] = [];
  private removals: Array<{ channel_id: string; access_key: string }> = [];
  private scheduled = false;

  constructor(private readonly client: SvcClient) {}

  create(specs: ChannelSpec[]): Promise<ChannelRefs[]> {
    return new Promise((resolve, reject) => {
      this.asks.push({ specs, resolve, reject });
      this.schedule();
    });
  }

  remove(refs: StreamChannelRef[]): void {
    for (const r of refs) this.removals.push({ channel_id: r.channel_id, access_key: r.access_key });
    this.schedule();
  }

  /** `remove` of one or two channels, without an array per call (a request frees two). */
  remove2(first: StreamChannelRef, second: StreamChannelRef | undefined): void {
    this.removals.push({ channel_id: first.channel_id, access_key: first.access_key });
    if (second !== undefined) this.removals.push({ channel_id: second.channel_id, access_key: second.access_key });
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    for (const group of groups(this.asks.splice(0))) void this.createGroup(group);
    const removals = this.removals.splice(0);
    for (let at = 0; at < removals.length; at += MAX_CHANNELS) {
      const channels = removals.slice(at, at + MAX_CHANNELS);
      this.client
        .trigger({ function_id: REMOVE_CHANNEL_FUNCTION, payload: { channels }, action: TriggerAction.Void() })
        .catch(() => undefined);
    }
  }

  private async createGroup(group: Ask[]): Promise<void> {
    try {
      const answer = await this.client.trigger<{ channels?: unknown }>({
        function_id: CREATE_CHANNEL_FUNCTION,
        payload: { channels: group.flatMap((ask) => ask.specs) },
      });
      const refs = refsOf(
        answer?.channels,
        group.reduce((n, ask) => n + ask.specs.length, 0),
      );
      let at = 0;
      for (const ask of group) {
        ask.resolve(refs.slice(at, at + ask.specs.length));
        at += ask.specs.length;
      }
    } catch (err) {
      for (const ask of group) ask.reject(err);
    }
  }
}

/** Splits asks into calls under the channel and prefill bounds (an ask is never split). */
function groups(asks: Ask[]): Ask[][] {
  const out: Ask[][] = [];
  let current: Ask[] = [];
  let channels = 0;
  let bytes = 0;
  for (const ask of asks) {
    const size = ask.specs.reduce((n, s) => n + (s.prefill?.length ?? 0), 0);
    if (current.length > 0 && (channels + ask.specs.length > MAX_CHANNELS || bytes + size > MAX_PREFILL_BYTES)) {
      out.push(current);
      current = [];
      channels = 0;
      bytes = 0;
    }
    current.push(ask);
    channels += ask.specs.length;
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}

function refsOf(list: unknown, expected: number): ChannelRefs[] {
  const ok = (r: unknown): r is ChannelRefs =>
    typeof r === 'object' &&
    r !== null &&
    isChannelRef((r as ChannelRefs).writer) &&
    isChannelRef((r as ChannelRefs).reader);
  if (!Array.isArray(list) || list.length !== expected || !list.every(ok)) {
    throw new Error(`${CREATE_CHANNEL_FUNCTION} answered without the ${expected} channels asked for`);
  }
  return list;
}
