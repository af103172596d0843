/** The OtelModule config → the sampler settings and resource the engine and the workers it spawns share. */
import type { ObservabilityConfig } from '@svc/config';
import type { SamplingSettings } from '@svc/sdk';

/**
 * With a `sampling:` section its rules, default ratio, parent-based flag and rate limit apply; without one,
 * `sampling_ratio` alone (parent-based, no cap).
 */
export function samplingSettings(config: ObservabilityConfig): SamplingSettings {
  const s = config.sampling;
  if (s === undefined) {
    return { defaultRatio: config.sampling_ratio, parentBased: true, rules: [], maxTracesPerSecond: 0 };
  }
  return {
    defaultRatio: s.default,
    parentBased: s.parent_based,
    rules: s.rules.map((r) => ({ ...r })),
    maxTracesPerSecond: s.rate_limit.max_traces_per_second,
  };
}

export function resourceAttributes(config: ObservabilityConfig): Record<string, string> {
  return { 'service.namespace': config.service_namespace, 'service.version': config.service_version };
}

/** The environment a spawned capability worker gets so that its logs and spans join the engine's telemetry. */
export function workerTelemetryEnv(config: ObservabilityConfig): Record<string, string> {
  if (!config.enabled) return {};
  return {
    SVC_OTEL: '1',
    SVC_OTEL_SAMPLING: JSON.stringify(samplingSettings(config)),
    SVC_OTEL_RESOURCE: JSON.stringify(resourceAttributes(config)),
  };
}
