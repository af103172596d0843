/**
 * The `log` trigger type (docs/observability.md, "Logs"): a binding's function is called (fire-and-forget) with every
 * stored log record of its `level` (`all`, the default, or one of `trace`, `debug`, `info`, `warn`, `error`). Records
 * logged while handling such a delivery do not fire log triggers again (that would loop): deliveries run in traces this
 * provider starts, and records of those traces are skipped.
 */
import type { Logger } from 'pino';
import { newTraceparent, textOf, parseTraceparent, TriggerAction, type SvcClient, type TriggerBinding } from '@svc/sdk';
import { levelOf } from './otlp/decode-logs.js';
import type { LogRecord } from './otlp/records.js';

const LEVELS = ['all', 'trace', 'debug', 'info', 'warn', 'error'];
const MAX_DELIVERY_TRACES = 10_000;

export class LogTriggers {
  private readonly bindings = new Map<string, { binding: TriggerBinding; level: string }>();
  /** Trace ids of deliveries (bounded, oldest forgotten first). */
  private readonly deliveryTraces = new Set<string>();

  constructor(
    private readonly client: SvcClient,
    private readonly logger: Logger,
  ) {}

  register(): void {
    this.client.registerTriggerType(
      { id: 'log', description: 'Fires a function for each log record (config: level = all|debug|info|warn|error)' },
      {
        registerTrigger: (binding) => this.add(binding),
        unregisterTrigger: (binding) => {
          this.bindings.delete(binding.id);
        },
      },
    );
  }

  get count(): number {
    return this.bindings.size;
  }

  fire(record: LogRecord): void {
    if (this.bindings.size === 0) return;
    if (record.trace_id !== null && this.deliveryTraces.has(record.trace_id)) return;
    const level = levelOf(record);
    for (const { binding, level: wanted } of this.bindings.values()) {
      if (wanted !== 'all' && wanted !== level) continue;
      const traceparent = this.deliveryTrace();
      this.client
        .fireTrigger(binding, record, { action: TriggerAction.Void(), traceparent })
        .catch((err: unknown) => this.logger.debug({ err, trigger: binding.id }, 'log trigger delivery failed'));
    }
  }

  private add(binding: TriggerBinding): void {
    const config = (binding.config ?? {}) as { level?: unknown };
    const level = config.level === undefined ? 'all' : textOf(config.level).toLowerCase();
    if (!LEVELS.includes(level)) {
      throw new Error(
        `log trigger ${binding.id}: level must be one of ${LEVELS.join(', ')} (got ${JSON.stringify(config.level)})`,
      );
    }
    this.bindings.set(binding.id, { binding, level });
  }

  private deliveryTrace(): string {
    const traceparent = newTraceparent();
    const traceId = parseTraceparent(traceparent)?.traceId as string;
    this.deliveryTraces.add(traceId);
    if (this.deliveryTraces.size > MAX_DELIVERY_TRACES) {
      const oldest = this.deliveryTraces.values().next().value;
      if (oldest !== undefined) this.deliveryTraces.delete(oldest);
    }
    return traceparent;
  }
}
