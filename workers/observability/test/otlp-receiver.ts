/**
 * An OTLP/HTTP receiver on loopback for tests, built from the OpenTelemetry JS packages: it decodes the protobuf
 * requests (`/v1/traces`, `/v1/metrics`, `/v1/logs`) with the generated protobuf root that
 * `@opentelemetry/otlp-transformer` ships, the same message definitions a collector uses, and keeps each one as
 * plain objects (64-bit numbers as decimal strings, ids as lowercase hex). It can also be told to answer with an
 * error status or not to answer at all.
 */
import { createRequire } from 'node:module';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface ProtoMessageType {
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: Record<string, unknown>): Record<string, unknown>;
}

const root = createRequire(import.meta.url)('@opentelemetry/otlp-transformer/build/src/generated/root.js') as {
  opentelemetry: {
    proto: {
      collector: Record<'trace' | 'metrics' | 'logs', { v1: Record<string, ProtoMessageType> }>;
    };
  };
};
const collector = root.opentelemetry.proto.collector;

const REQUESTS: Record<string, ProtoMessageType | undefined> = {
  '/v1/traces': collector.trace.v1.ExportTraceServiceRequest,
  '/v1/metrics': collector.metrics.v1.ExportMetricsServiceRequest,
  '/v1/logs': collector.logs.v1.ExportLogsServiceRequest,
};

export interface KeyValue {
  key: string;
  value: {
    stringValue?: string;
    intValue?: string;
    doubleValue?: number;
    boolValue?: boolean;
    kvlistValue?: { values: KeyValue[] };
    arrayValue?: { values: KeyValue['value'][] };
  };
}
export interface OtlpResource {
  attributes?: KeyValue[];
}
export interface OtlpScope {
  name?: string;
  version?: string;
}
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: KeyValue[];
  events?: { name: string; attributes?: KeyValue[] }[];
  links?: { traceId: string; spanId: string }[];
  status?: { code?: number; message?: string };
}
export interface OtlpLogRecord {
  timeUnixNano?: string;
  severityNumber?: number;
  severityText?: string;
  body?: KeyValue['value'];
  attributes?: KeyValue[];
  traceId?: string;
  spanId?: string;
}
export interface OtlpNumberPoint {
  attributes?: KeyValue[];
  startTimeUnixNano?: string;
  timeUnixNano?: string;
  asInt?: string;
  asDouble?: number;
}
export interface OtlpHistogramPoint {
  attributes?: KeyValue[];
  count?: string;
  sum?: number;
  bucketCounts?: string[];
  explicitBounds?: number[];
}
export interface OtlpMetric {
  name: string;
  unit?: string;
  sum?: { dataPoints: OtlpNumberPoint[]; isMonotonic?: boolean; aggregationTemporality?: number };
  gauge?: { dataPoints: OtlpNumberPoint[] };
  histogram?: { dataPoints: OtlpHistogramPoint[]; aggregationTemporality?: number };
}
export interface OtlpRequest {
  resourceSpans?: { resource?: OtlpResource; scopeSpans?: { scope?: OtlpScope; spans?: OtlpSpan[] }[] }[];
  resourceMetrics?: { resource?: OtlpResource; scopeMetrics?: { scope?: OtlpScope; metrics?: OtlpMetric[] }[] }[];
  resourceLogs?: { resource?: OtlpResource; scopeLogs?: { scope?: OtlpScope; logRecords?: OtlpLogRecord[] }[] }[];
}

export interface Received {
  path: string;
  contentType: string | undefined;
  headers: IncomingHttpHeaders;
  body: OtlpRequest;
}

/** `none`: hold the request without answering (a receiver that hangs). */
export type ReceiverMode = 'ok' | 'unavailable' | 'none';

export class OtlpReceiver {
  readonly received: Received[] = [];
  /** Requests whose body did not decode (none expected). */
  readonly rejected: { path: string; error: string }[] = [];
  mode: ReceiverMode = 'ok';
  private readonly held: ServerResponse[] = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpReceiver> {
    const server = createServer();
    const receiver = new OtlpReceiver(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => receiver.handle(req.url ?? '', req.headers, Buffer.concat(chunks), res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The requests to one path, decoded. */
  at(path: '/v1/traces' | '/v1/metrics' | '/v1/logs'): OtlpRequest[] {
    return this.received.filter((r) => r.path === path).map((r) => r.body);
  }

  spans(): { resource: Record<string, unknown>; scope: OtlpScope; span: OtlpSpan }[] {
    return this.at('/v1/traces').flatMap((b) =>
      (b.resourceSpans ?? []).flatMap((rs) =>
        (rs.scopeSpans ?? []).flatMap((ss) =>
          (ss.spans ?? []).map((span) => ({ resource: attrs(rs.resource?.attributes), scope: ss.scope ?? {}, span })),
        ),
      ),
    );
  }

  logRecords(): { resource: Record<string, unknown>; scope: OtlpScope; record: OtlpLogRecord }[] {
    return this.at('/v1/logs').flatMap((b) =>
      (b.resourceLogs ?? []).flatMap((rl) =>
        (rl.scopeLogs ?? []).flatMap((sl) =>
          (sl.logRecords ?? []).map((record) => ({
            resource: attrs(rl.resource?.attributes),
            scope: sl.scope ?? {},
            record,
          })),
        ),
      ),
    );
  }

  metrics(): { resource: Record<string, unknown>; scope: OtlpScope; metric: OtlpMetric }[] {
    return this.at('/v1/metrics').flatMap((b) =>
      (b.resourceMetrics ?? []).flatMap((rm) =>
        (rm.scopeMetrics ?? []).flatMap((sm) =>
          (sm.metrics ?? []).map((metric) => ({
            resource: attrs(rm.resource?.attributes),
            scope: sm.scope ?? {},
            metric,
          })),
        ),
      ),
    );
  }

  async close(): Promise<void> {
    for (const res of this.held.splice(0)) res.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private handle(path: string, headers: IncomingHttpHeaders, bytes: Buffer, res: ServerResponse): void {
    if (this.mode === 'none') {
      this.held.push(res);
      return;
    }
    if (this.mode === 'unavailable') {
      res.writeHead(503).end();
      return;
    }
    const type = REQUESTS[path];
    const contentType = headers['content-type'];
    if (type === undefined || contentType !== 'application/x-protobuf') {
      this.rejected.push({ path, error: `unexpected ${path} (${String(contentType)})` });
      res.writeHead(404).end();
      return;
    }
    try {
      const message = type.decode(bytes);
      const body = type.toObject(message, { longs: String, enums: Number, bytes: String, defaults: false });
      this.received.push({ path, contentType, headers, body: hexIds(body) as OtlpRequest });
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    } catch (err) {
      this.rejected.push({ path, error: String(err) });
      res.writeHead(400).end();
    }
  }
}

const ID_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId']);

/** Ids come out of `toObject` as base64; tests compare them as the hex everyone prints. */
function hexIds(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(hexIds);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => [
      k,
      ID_FIELDS.has(k) && typeof x === 'string' ? Buffer.from(x, 'base64').toString('hex') : hexIds(x),
    ]),
  );
}

/** A `KeyValue[]` as an object of plain values (ints as numbers). */
export function attrs(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, plain(kv.value)]));
}

function plain(v: KeyValue['value'] | undefined): unknown {
  if (v === undefined) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue !== undefined) return v.arrayValue.values.map(plain);
  if (v.kvlistValue !== undefined) return attrs(v.kvlistValue.values);
  return undefined;
}
