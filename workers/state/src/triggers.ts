/**
 * The `state` trigger type (README.md, "Trigger type `state`"): config `{scope?, key?, condition_function_id?}`
 * (exact-match filters; absent or empty = any), payload `{type:"state", event_type, scope, key, old_value, new_value}`.
 * Every committed change this process made is matched against the bindings the engine handed over and delivered through
 * the dispatcher (commit order per key, bounded). The SDK's `fireTrigger` applies `condition_function_id`.
 */
import { currentWriteTrace } from './write-trace.js';
import type { Logger } from 'pino';
import type { SvcClient, TriggerBinding } from '@svc/sdk';
import type { StateChange } from './adapters/types.js';
import type { TriggerDispatcher } from './dispatcher.js';

export const STATE_TRIGGER_TYPE = 'state';

interface StateTriggerConfig {
  scope?: string;
  key?: string;
  condition_function_id?: string;
}

export class StateTriggers {
  private readonly bindings = new Map<string, TriggerBinding<StateTriggerConfig>>();

  constructor(
    private readonly client: SvcClient,
    private readonly dispatcher: TriggerDispatcher,
    private readonly options: { timeoutMs: number; maxPending: number; logger: Logger },
  ) {}

  register(): void {
    this.client.registerTriggerType<unknown>(
      {
        id: STATE_TRIGGER_TYPE,
        description: 'Fires when a state entry is created, updated or deleted (filters: scope, key)',
      },
      {
        registerTrigger: (binding) => this.add(binding),
        unregisterTrigger: (binding) => void this.bindings.delete(binding.id),
      },
    );
    this.client.registerFunction('state::trigger_stats', () => this.stats(), {
      description: 'Trigger delivery counters of the svc-state process that answers (bindings, pending, ...)',
    });
  }

  /** Counters of this process: deliveries, failures, and writes held back by a full dispatcher. */
  stats() {
    const { pending, delivered, failed, backpressureWaits } = this.dispatcher.snapshot();
    return {
      /** Which replica answered (several svc-state processes may serve one engine). */
      pid: process.pid,
      bindings: this.bindings.size,
      pending,
      delivered,
      failed,
      backpressure_waits: backpressureWaits,
      max_pending: this.options.maxPending,
    };
  }

  /** Called by the store's change feed, synchronously, in commit order. */
  onChange(change: StateChange): void {
    if (this.bindings.size === 0) return;
    const payload = { type: 'state', ...change };
    const traceparent = currentWriteTrace();
    for (const binding of this.bindings.values()) {
      if (!matches(binding.config, change)) continue;
      this.dispatcher.dispatch({
        chain: `${binding.id}\u0000${change.scope}\u0000${change.key}`,
        run: async () => {
          await this.client.fireTrigger(binding, payload, { timeoutMs: this.options.timeoutMs, traceparent });
        },
      });
    }
  }

  private add(binding: TriggerBinding<unknown>): void {
    const config = parseConfig(binding.config);
    this.bindings.set(binding.id, { ...binding, config });
    this.options.logger.debug({ id: binding.id, function_id: binding.function_id, config }, 'state trigger bound');
  }
}

function matches(config: StateTriggerConfig, change: StateChange): boolean {
  if (config.scope && config.scope !== change.scope) return false;
  if (config.key && config.key !== change.key) return false;
  return true;
}

/** Throws (the engine then reports `trigger_registration_failed` to the registering worker) on a bad config. */
function parseConfig(raw: unknown): StateTriggerConfig {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new Error('state trigger config must be an object like {"scope": "orders", "key": "latest"}');
  }
  const fields = raw as Record<string, unknown>;
  const config: StateTriggerConfig = {};
  for (const name of ['scope', 'key', 'condition_function_id'] as const) {
    const value = fields[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw new Error(`state trigger config: ${name} must be a string`);
    config[name] = value;
  }
  return config;
}
