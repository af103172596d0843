/**
 * A worker's telemetry over its own engine connection: OTLP frames go out on the worker socket as binary frames
 * (the engine accepts them on `/` as on `/otel`). Settings come from the environment the engine gives the
 * processes it spawns: `SVC_OTEL` (on/off), `SVC_OTEL_SAMPLING` (JSON sampling settings), `SVC_OTEL_RESOURCE`
 * (JSON resource attributes such as `service.namespace`).
 */
import type { Attributes } from '@opentelemetry/api';
import type { ClientTransport } from '../connection/transport.js';
import { telemetryFrame } from './otlp-frames.js';
import { samplingFromJson } from './sampler.js';
import { Telemetry } from './telemetry.js';

export function telemetryEnabled(option: boolean | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  if (option !== undefined) return option;
  const v = (env.SVC_OTEL ?? '').toLowerCase();
  return v === '1' || v === 'true';
}

function resourceFromJson(text: string | undefined): Attributes | undefined {
  if (text === undefined || text === '') return undefined;
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
    return Object.fromEntries<string>(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return undefined;
  }
}

export function createWorkerTelemetry(
  transport: ClientTransport,
  serviceName: string,
  option: boolean | undefined,
): Telemetry | undefined {
  if (!telemetryEnabled(option) || transport.sendTelemetry === undefined) return undefined;
  return new Telemetry({
    serviceName,
    sink: (prefix, body) => transport.sendTelemetry?.(telemetryFrame(prefix, body)) ?? false,
    sampling: samplingFromJson(process.env.SVC_OTEL_SAMPLING),
    resource: resourceFromJson(process.env.SVC_OTEL_RESOURCE),
  });
}
