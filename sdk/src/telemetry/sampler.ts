/**
 * Head sampling shared by the engine and the SDK, built from OpenTelemetry's own samplers: the first sampling
 * rule whose `operation` (span name) and `service` patterns match picks a ratio, applied by trace id
 * (`TraceIdRatioBasedSampler`, so every process decides the same way for one trace); then a global cap of new
 * sampled traces per second. `parent_based` wraps it in `ParentBasedSampler`: a span with a parent follows the
 * parent's decision.
 */
import type { Attributes, Context, Link, SpanKind } from '@opentelemetry/api';
import { globMatcher, type GlobMatcher } from '../glob.js';
import {
  AlwaysOnSampler,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SamplingResult,
} from '@opentelemetry/sdk-trace-base';

export interface SamplingRuleSettings {
  /** `*` any characters, `?` exactly one. */
  operation?: string;
  service?: string;
  rate: number;
}

export interface SamplingSettings {
  /** Ratio for spans matching no rule. */
  defaultRatio: number;
  parentBased: boolean;
  rules: SamplingRuleSettings[];
  /** New sampled traces per second, all rules together; 0 = no cap. */
  maxTracesPerSecond: number;
}

/** The attribute the rules' `service` pattern is matched against (the span's service). */
export const SERVICE_ATTRIBUTE = 'service.name';

interface CompiledRule {
  operation: GlobMatcher | undefined;
  service: GlobMatcher | undefined;
  sampler: Sampler;
}

/** Counts sampled root traces in the current one-second window. */
class RateLimiter {
  private windowStart = 0;
  private count = 0;

  constructor(private readonly perSecond: number) {}

  take(now: number): boolean {
    if (this.perSecond <= 0) return true;
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.count = 0;
    }
    if (this.count >= this.perSecond) return false;
    this.count++;
    return true;
  }
}

export class RuleSampler implements Sampler {
  private readonly rules: CompiledRule[];
  private readonly fallback: Sampler;
  private readonly limiter: RateLimiter;

  constructor(private readonly settings: SamplingSettings) {
    this.rules = settings.rules.map((r) => ({
      operation: r.operation === undefined ? undefined : globMatcher(r.operation),
      service: r.service === undefined ? undefined : globMatcher(r.service),
      sampler: ratioSampler(r.rate),
    }));
    this.fallback = ratioSampler(settings.defaultRatio);
    this.limiter = new RateLimiter(settings.maxTracesPerSecond);
  }

  shouldSample(
    context: Context,
    traceId: string,
    spanName: string,
    spanKind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): SamplingResult {
    const service = attributes[SERVICE_ATTRIBUTE];
    const rule = this.rules.find(
      (r) =>
        (r.operation === undefined || r.operation(spanName)) &&
        (r.service === undefined || (typeof service === 'string' && r.service(service))),
    );
    const sampler = rule?.sampler ?? this.fallback;
    const result = sampler.shouldSample(context, traceId, spanName, spanKind, attributes, links);
    if (result.decision === SamplingDecision.RECORD_AND_SAMPLED && !this.limiter.take(Date.now())) {
      return { decision: SamplingDecision.NOT_RECORD };
    }
    return result;
  }

  toString(): string {
    return `RuleSampler{rules=${this.settings.rules.length},default=${this.settings.defaultRatio}}`;
  }
}

function ratioSampler(rate: number): Sampler {
  return rate >= 1 ? new AlwaysOnSampler() : new TraceIdRatioBasedSampler(rate);
}

/** The sampler for `settings`; every span is sampled when there are none. */
export function createSampler(settings: SamplingSettings | undefined): Sampler {
  if (settings === undefined) return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  const root = new RuleSampler(settings);
  return settings.parentBased ? new ParentBasedSampler({ root }) : root;
}

/** Parses the sampling settings handed to a worker process as JSON (`SVC_OTEL_SAMPLING`); undefined when absent. */
export function samplingFromJson(text: string | undefined): SamplingSettings | undefined {
  if (text === undefined || text === '') return undefined;
  try {
    const v = JSON.parse(text) as Partial<SamplingSettings>;
    if (typeof v.defaultRatio !== 'number') return undefined;
    return {
      defaultRatio: v.defaultRatio,
      parentBased: v.parentBased !== false,
      rules: Array.isArray(v.rules) ? v.rules : [],
      maxTracesPerSecond: typeof v.maxTracesPerSecond === 'number' ? v.maxTracesPerSecond : 0,
    };
  } catch {
    return undefined;
  }
}
