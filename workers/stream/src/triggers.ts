import type { Logger } from 'pino';
import type { SvcClient, TriggerBinding } from '@svc/sdk';
import type { StreamWrapperMessage } from './messages.js';
import type { JoinLeaveEvent } from './server/client-server.js';

export const TRIGGER_TYPES = { change: 'stream', join: 'stream:join', leave: 'stream:leave' } as const;

/** `stream` trigger invocations running at once in this process. */
const MAX_IN_FLIGHT_CHANGES = 1024;

interface ChangeFilter {
  stream_name: string;
  group_id?: string;
  item_id?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Validates a `stream` trigger's config: `stream_name` is required, `group_id` / `item_id` filter when non-empty. */
export function parseChangeFilter(config: unknown): ChangeFilter {
  const c = isRecord(config) ? config : {};
  if (typeof c.stream_name !== 'string' || c.stream_name === '') {
    throw new Error("a 'stream' trigger needs config.stream_name (a non-empty string)");
  }
  for (const key of ['group_id', 'item_id'] as const) {
    if (c[key] !== undefined && c[key] !== null && typeof c[key] !== 'string') {
      throw new Error(`a 'stream' trigger's config.${key} must be a string when given`);
    }
  }
  const filter: ChangeFilter = { stream_name: c.stream_name };
  if (typeof c.group_id === 'string' && c.group_id !== '') filter.group_id = c.group_id;
  if (typeof c.item_id === 'string' && c.item_id !== '') filter.item_id = c.item_id;
  return filter;
}

/** A join/leave binding with `config.stream_name` only hears about that stream; without it, about every stream. */
function forStream(binding: TriggerBinding, stream: string): boolean {
  const config = isRecord(binding.config) ? binding.config : {};
  return typeof config.stream_name !== 'string' || config.stream_name === '' || config.stream_name === stream;
}

function matches(filter: ChangeFilter, message: StreamWrapperMessage): boolean {
  return (
    filter.stream_name === message.streamName &&
    (filter.group_id === undefined || filter.group_id === message.groupId) &&
    (filter.item_id === undefined || filter.item_id === message.id)
  );
}

/**
 * The three trigger types svc-stream provides. `stream` fires on the process that made the change (the payload is
 * the wrapper frame); `stream:join` handlers decide each join (any `{unauthorized: true}`, error or timeout refuses
 * it); `stream:leave` handlers are told of every leave, their results ignored. A join/leave binding applies to every
 * stream unless its config names a `stream_name` (the original engine ignored that key, docs/protocol.md §6;
 * handlers written for it branch on `stream_name` themselves and work the same here).
 */
export class StreamTriggers {
  private readonly changes = new Map<string, { binding: TriggerBinding; filter: ChangeFilter }>();
  private readonly joins = new Map<string, TriggerBinding>();
  private readonly leaves = new Map<string, TriggerBinding>();
  private inFlight = 0;
  private dropped = 0;
  private lastDropLog = 0;

  constructor(
    private readonly client: SvcClient,
    private readonly logger: Logger,
    private readonly joinTimeoutMs: number,
  ) {}

  register(): void {
    this.client.registerTriggerType(
      { id: TRIGGER_TYPES.change, description: 'Fires on every change and custom event of a stream' },
      {
        registerTrigger: (b) => void this.changes.set(b.id, { binding: b, filter: parseChangeFilter(b.config) }),
        unregisterTrigger: (b) => void this.changes.delete(b.id),
      },
    );
    this.client.registerTriggerType(
      { id: TRIGGER_TYPES.join, description: 'Decides stream subscriptions; return {unauthorized: true} to refuse' },
      { registerTrigger: (b) => void this.joins.set(b.id, b), unregisterTrigger: (b) => void this.joins.delete(b.id) },
    );
    this.client.registerTriggerType(
      { id: TRIGGER_TYPES.leave, description: 'Told when a client leaves a stream subscription' },
      {
        registerTrigger: (b) => void this.leaves.set(b.id, b),
        unregisterTrigger: (b) => void this.leaves.delete(b.id),
      },
    );
  }

  /** Fires the matching `stream` triggers in the background; a failing handler is logged. */
  fireChange(message: StreamWrapperMessage): void {
    for (const { binding, filter } of this.changes.values()) {
      if (!matches(filter, message)) continue;
      if (this.inFlight >= MAX_IN_FLIGHT_CHANGES) {
        this.countDropped();
        continue;
      }
      this.inFlight++;
      this.client
        .fireTrigger(binding, message)
        .catch((err: unknown) => {
          this.logger.warn({ err, trigger_id: binding.id, function_id: binding.function_id }, 'stream trigger failed');
        })
        .finally(() => this.inFlight--);
    }
  }

  /** Slow `stream` handlers must not grow memory without bound: past the cap, firings are dropped and counted. */
  private countDropped(): void {
    this.dropped++;
    const now = Date.now();
    if (now - this.lastDropLog < 1000) return;
    this.lastDropLog = now;
    this.logger.warn({ dropped: this.dropped, in_flight: this.inFlight }, 'stream triggers dropped: handlers too slow');
  }

  async authorizeJoin(event: JoinLeaveEvent): Promise<boolean> {
    for (const binding of [...this.joins.values()].filter((b) => forStream(b, event.stream_name))) {
      try {
        const outcome = await this.client.fireTrigger(binding, event, { timeoutMs: this.joinTimeoutMs });
        if (outcome.fired && isRecord(outcome.result) && outcome.result.unauthorized === true) return false;
      } catch (err) {
        // Fail closed: a join handler that cannot answer does not let the subscription through.
        this.logger.warn({ err, function_id: binding.function_id }, 'stream:join handler failed; join refused');
        return false;
      }
    }
    return true;
  }

  notifyLeave(event: JoinLeaveEvent): void {
    const bindings = [...this.leaves.values()].filter((b) => forStream(b, event.stream_name));
    if (bindings.length === 0) return;
    void (async () => {
      for (const binding of bindings) {
        await this.client.fireTrigger(binding, event, { timeoutMs: this.joinTimeoutMs }).catch((err: unknown) => {
          this.logger.warn({ err, function_id: binding.function_id }, 'stream:leave handler failed');
        });
      }
    })();
  }
}
