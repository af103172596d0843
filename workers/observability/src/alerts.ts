/**
 * Alert rules over the metric store (docs/observability.md, "Alerts"): every second, each enabled rule reads its metric
 * over `window_seconds` (see `MetricStore.windowValue`) and compares it with `threshold`. A rule that holds fires its
 * action, then stays quiet for `cooldown_seconds` (default: its window). Actions: `webhook` (the alert is POSTed as
 * JSON) or `function` (invoked, fire-and-forget, with the same payload).
 */
import type { Logger } from 'pino';
import { textOf, TriggerAction, type SvcClient } from '@svc/sdk';
import type { AlertRule } from './config.js';
import type { MetricStore } from './stores/metric-store.js';

const COMPARE: Record<AlertRule['operator'], (a: number, b: number) => boolean> = {
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '==': (a, b) => a === b,
  '!=': (a, b) => a !== b,
};

interface AlertState {
  last_value: number | null;
  triggered: boolean;
  last_fired_ms: number | null;
  fired_count: number;
  last_error: string | null;
}

export interface AlertPayload {
  alert: string;
  metric: string;
  value: number;
  operator: string;
  threshold: number;
  window_seconds: number;
  fired_at: string;
}

export class Alerts {
  private readonly states = new Map<string, AlertState>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly rules: AlertRule[],
    private readonly metrics: MetricStore,
    private readonly client: SvcClient,
    private readonly logger: Logger,
  ) {
    for (const r of rules) {
      this.states.set(r.name, {
        last_value: null,
        triggered: false,
        last_fired_ms: null,
        fired_count: 0,
        last_error: null,
      });
    }
  }

  start(intervalMs = 1000): void {
    if (this.rules.length === 0) return;
    this.timer = setInterval(() => this.evaluate(), intervalMs);
    this.timer.unref();
  }

  close(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  list(): unknown {
    return { alerts: this.rules.map((rule) => ({ ...rule, state: this.states.get(rule.name) })) };
  }

  /** Evaluates every enabled rule now; fires those that hold and are out of cooldown. */
  evaluate(nowMs = Date.now()): unknown {
    const results = this.rules.map((rule) => this.evaluateRule(rule, nowMs));
    return { evaluated_at: new Date(nowMs).toISOString(), alerts: results };
  }

  private evaluateRule(rule: AlertRule, nowMs: number): unknown {
    const state = this.states.get(rule.name) as AlertState;
    if (!rule.enabled) return { name: rule.name, enabled: false, triggered: false, fired: false };
    const { value } = this.metrics.windowValue(rule.metric, rule.window_seconds * 1000, nowMs);
    state.last_value = value ?? null;
    state.triggered = value !== undefined && COMPARE[rule.operator](value, rule.threshold);
    const cooldownMs = (rule.cooldown_seconds ?? rule.window_seconds) * 1000;
    const fire = state.triggered && (state.last_fired_ms === null || nowMs - state.last_fired_ms >= cooldownMs);
    if (fire && value !== undefined) {
      state.last_fired_ms = nowMs;
      state.fired_count++;
      this.act(rule, state, {
        alert: rule.name,
        metric: rule.metric,
        value,
        operator: rule.operator,
        threshold: rule.threshold,
        window_seconds: rule.window_seconds,
        fired_at: new Date(nowMs).toISOString(),
      });
    }
    return { name: rule.name, enabled: true, value: value ?? null, triggered: state.triggered, fired: fire };
  }

  private act(rule: AlertRule, state: AlertState, payload: AlertPayload): void {
    this.logger.warn(payload, `alert ${rule.name} fired`);
    const done = (err: unknown): void => {
      state.last_error = err === undefined ? null : textOf(err);
      if (err !== undefined) this.logger.error({ err: textOf(err), alert: rule.name }, 'alert action failed');
    };
    if (rule.action.type === 'webhook') {
      fetch(rule.action.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(5000),
      }).then(
        (res) => done(res.ok ? undefined : `webhook answered ${res.status}`),
        (err: unknown) => done(err),
      );
    } else {
      this.client
        .trigger({ function_id: rule.action.path, payload, action: TriggerAction.Void() })
        .then(() => done(undefined), done);
    }
  }
}
