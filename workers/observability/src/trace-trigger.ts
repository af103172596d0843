/**
 * The `trace` trigger type (README.md, "Functions"): a binding's function is called with `{trace_ids: [...]}`, the ids
 * of traces that received spans matching its filters (`service_name`, `status`: `ok`/`error`/`unset`), coalesced every
 * 300 ms (one call per binding per period, each id once).
 */
import type { Logger } from 'pino';
import { textOf, TriggerAction, type SvcClient, type TriggerBinding } from '@svc/sdk';
import type { StoredSpan } from './otlp/records.js';

const COALESCE_MS = 300;
const STATUSES = ['ok', 'error', 'unset'];

interface TraceBinding {
  binding: TriggerBinding;
  service?: string;
  status?: string;
  pending: Set<string>;
}

export class TraceTriggers {
  private readonly bindings = new Map<string, TraceBinding>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: SvcClient,
    private readonly logger: Logger,
  ) {}

  register(): void {
    this.client.registerTriggerType(
      { id: 'trace', description: 'Fires with {trace_ids} of traces with new spans (config: service_name?, status?)' },
      {
        registerTrigger: (binding) => this.add(binding),
        unregisterTrigger: (binding) => {
          this.bindings.delete(binding.id);
        },
      },
    );
    this.timer = setInterval(() => this.flush(), COALESCE_MS);
    this.timer.unref();
  }

  close(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
  }

  /** Some binding wants spans (`spans` returns at once without one). */
  get active(): boolean {
    return this.bindings.size > 0;
  }

  spans(spans: StoredSpan[]): void {
    if (this.bindings.size === 0) return;
    for (const b of this.bindings.values()) {
      for (const s of spans) {
        if ((b.service === undefined || s.service === b.service) && (b.status === undefined || s.status === b.status)) {
          b.pending.add(s.trace_id);
        }
      }
    }
  }

  private flush(): void {
    for (const b of this.bindings.values()) {
      if (b.pending.size === 0) continue;
      const trace_ids = [...b.pending];
      b.pending.clear();
      this.client
        .fireTrigger(b.binding, { trace_ids }, { action: TriggerAction.Void() })
        .catch((err: unknown) => this.logger.debug({ err, trigger: b.binding.id }, 'trace trigger delivery failed'));
    }
  }

  private add(binding: TriggerBinding): void {
    const config = (binding.config ?? {}) as { service_name?: unknown; status?: unknown };
    const status = config.status === undefined ? undefined : textOf(config.status).toLowerCase();
    if (status !== undefined && !STATUSES.includes(status)) {
      throw new Error(`trace trigger ${binding.id}: status must be one of ${STATUSES.join(', ')}`);
    }
    const service = config.service_name === undefined ? undefined : textOf(config.service_name);
    this.bindings.set(binding.id, { binding, service, status, pending: new Set() });
  }
}
