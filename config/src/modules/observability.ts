/** `modules::observability::OtelModule` (engine module): traces, metrics, logs, alerts (SPEC.md "Observability"). */
import { z } from 'zod';
import { nonNegativeIntSchema, positiveIntSchema, ratioSchema } from './common.js';

const exporterSchema = z.enum(['memory', 'otlp', 'both']);

export const samplingRuleSchema = z
  .object({
    /** Pattern on the operation (span) name; `*` any characters, `?` one character. */
    operation: z.string().min(1).optional(),
    service: z.string().min(1).optional(),
    rate: ratioSchema,
  })
  .strict();

export const samplingConfigSchema = z
  .object({
    default: ratioSchema.default(0.5),
    parent_based: z.boolean().default(true),
    /** Evaluated in order; the first match wins. */
    rules: z.array(samplingRuleSchema).default([]),
    rate_limit: z
      .object({ max_traces_per_second: positiveIntSchema.default(100) })
      .strict()
      .prefault({}),
  })
  .strict();

export const alertActionSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('webhook'), url: z.string().min(1) }).strict(),
  z.object({ type: z.literal('function'), path: z.string().min(1) }).strict(),
]);

export const alertRuleSchema = z
  .object({
    name: z.string().min(1),
    /** Built-ins include `svc.invocations.*` and `svc.workers.*`. */
    metric: z.string().min(1),
    threshold: z.number(),
    operator: z.enum(['>', '>=', '<', '<=', '==', '!=']),
    window_seconds: positiveIntSchema,
    enabled: z.boolean().default(true),
    cooldown_seconds: nonNegativeIntSchema.optional(),
    action: alertActionSchema,
  })
  .strict();

export const observabilityConfigSchema = z
  .object({
    enabled: z.boolean().default(false),
    service_name: z.string().min(1).default('svc'),
    service_version: z.string().min(1).default('1.0.0'),
    service_namespace: z.string().min(1).default('production'),
    exporter: exporterSchema.default('both'),
    /** OTLP collector; used when `exporter` is `otlp` or `both`. */
    endpoint: z.string().min(1).default('http://localhost:4317'),
    sampling_ratio: ratioSchema.default(1.0),
    /** Advanced sampling; when present it overrides `sampling_ratio`. */
    sampling: samplingConfigSchema.optional(),
    memory_max_spans: positiveIntSchema.default(10000),
    metrics_enabled: z.boolean().default(true),
    metrics_exporter: z.enum(['memory', 'otlp']).default('memory'),
    metrics_retention_seconds: positiveIntSchema.default(3600),
    metrics_max_count: positiveIntSchema.default(10000),
    logs_enabled: z.boolean().default(true),
    logs_exporter: exporterSchema.default('both'),
    logs_max_count: positiveIntSchema.default(1000),
    logs_retention_seconds: positiveIntSchema.default(3600),
    logs_batch_size: positiveIntSchema.default(100),
    logs_flush_interval_ms: positiveIntSchema.default(5000),
    logs_sampling_ratio: ratioSchema.default(1.0),
    logs_console_output: z.boolean().default(true),
    level: z.enum(['trace', 'debug', 'info', 'warn', 'error']).default('info'),
    format: z.enum(['default', 'json']).default('json'),
    alerts: z.array(alertRuleSchema).default([]),
  })
  .strict();

export type SamplingRule = z.infer<typeof samplingRuleSchema>;
export type AlertRule = z.infer<typeof alertRuleSchema>;
export type ObservabilityConfig = z.infer<typeof observabilityConfigSchema>;
