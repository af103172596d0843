/**
 * svc-otel's config, the `modules::observability::OtelModule` entry's (traces, metrics, logs, alerts; docs/config.md,
 * `modules::observability::OtelModule`): imported by the config kit's catalogue through
 * `@svc/worker-observability/config`, so it imports nothing but zod and the kit.
 */
import { z } from 'zod';
import { nonNegativeIntSchema, positiveIntSchema, ratioSchema, readModuleConfig } from '@svc/config-kit';

const exporterSchema = z.enum(['memory', 'otlp', 'both']);

export const samplingRuleSchema = z
  .object({
    operation: z
      .string()
      .min(1)
      .optional()
      .describe('Pattern on the operation (span) name; `*` any characters, `?` one character.'),
    service: z.string().min(1).optional(),
    rate: ratioSchema,
  })
  .strict();

export const samplingConfigSchema = z
  .object({
    default: ratioSchema.default(0.5).describe('Share of traces kept when no rule matches, 0 to 1.'),
    parent_based: z.boolean().default(true).describe("Follows the parent span's sampling decision when there is one."),
    rules: z.array(samplingRuleSchema).default([]).describe('Evaluated in order; the first match wins.'),
    rate_limit: z
      .object({ max_traces_per_second: positiveIntSchema.default(100).describe('Most traces kept per second.') })
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
    metric: z.string().min(1).describe('Built-ins include `svc.invocations.*` and `svc.workers.*`.'),
    threshold: z.number(),
    operator: z.enum(['>', '>=', '<', '<=', '==', '!=']),
    window_seconds: positiveIntSchema,
    enabled: z.boolean().default(true).describe('Turns it on.'),
    cooldown_seconds: nonNegativeIntSchema.optional(),
    action: alertActionSchema,
  })
  .strict();

export const observabilityConfigSchema = z
  .object({
    enabled: z.boolean().default(false).describe('Turns it on.'),
    service_name: z.string().min(1).default('svc').describe('`service.name` of the spans, metrics and logs.'),
    service_version: z.string().min(1).default('1.0.0').describe('`service.version` resource attribute.'),
    service_namespace: z.string().min(1).default('production').describe('`service.namespace` resource attribute.'),
    exporter: exporterSchema
      .default('both')
      .describe(
        'Where spans go: kept in memory (queried through `engine::traces::*`), sent to `endpoint` over OTLP, or both.',
      ),
    endpoint: z
      .string()
      .min(1)
      .default('http://localhost:4317')
      .describe(
        "Base URL of an OTLP/HTTP receiver (protobuf encoding; a collector listens on port 4318); svc-otel sends to `<endpoint>/v1/traces`, `/v1/metrics` and `/v1/logs`. Used when a signal's exporter includes `otlp`.",
      ),
    headers: z
      .record(z.string(), z.string())
      .default({})
      .describe(
        'HTTP headers sent with every OTLP request (an API key, for instance; `${VAR}` references keep it out of the file).',
      ),
    export_timeout_ms: positiveIntSchema
      .default(10000)
      .describe('Longest an OTLP request may take (retries included) before its batch is dropped.'),
    sampling_ratio: ratioSchema.default(1.0).describe('Share of traces kept, 0 to 1.'),
    sampling: samplingConfigSchema
      .optional()
      .describe('Advanced sampling; when present it overrides `sampling_ratio`.'),
    memory_max_spans: positiveIntSchema.default(10000).describe('Spans kept in memory; the oldest are dropped first.'),
    metrics_enabled: z.boolean().default(true).describe('Collects metrics.'),
    metrics_exporter: z.enum(['memory', 'otlp']).default('memory').describe('Where metrics go: memory or OTLP.'),
    metrics_retention_seconds: positiveIntSchema.default(3600).describe('How long metrics are kept in memory.'),
    metrics_max_count: positiveIntSchema.default(10000).describe('Metric points kept in memory.'),
    logs_enabled: z.boolean().default(true).describe('Collects logs.'),
    logs_exporter: exporterSchema.default('both').describe('Where logs go: memory, OTLP, or both.'),
    logs_max_count: positiveIntSchema.default(1000).describe('Log records kept in memory.'),
    logs_retention_seconds: positiveIntSchema.default(3600).describe('How long log records are kept in memory.'),
    logs_batch_size: positiveIntSchema.default(100).describe('Log records sent per OTLP batch.'),
    logs_flush_interval_ms: positiveIntSchema
      .default(5000)
      .describe('Longest wait before a partial batch of logs is sent.'),
    logs_sampling_ratio: ratioSchema.default(1.0).describe('Share of log records kept, 0 to 1.'),
    logs_console_output: z.boolean().default(true).describe('Also prints log records to the console.'),
    level: z
      .enum(['trace', 'debug', 'info', 'warn', 'error'])
      .default('info')
      .describe('Lowest level of the log records collected.'),
    format: z.enum(['default', 'json']).default('json').describe('Console format of the log records.'),
    alerts: z.array(alertRuleSchema).default([]).describe('Alert rules evaluated on the metrics.'),
  })
  .strict();

export type SamplingRule = z.infer<typeof samplingRuleSchema>;
export type AlertRule = z.infer<typeof alertRuleSchema>;
export type ObservabilityConfig = z.infer<typeof observabilityConfigSchema>;

/** svc-otel's resolved config, from `SVC_MODULE_CONFIG` (the engine's exec module hands it over). */
export function readObservabilityConfig(): ObservabilityConfig {
  return readModuleConfig('svc-otel', observabilityConfigSchema);
}
