/**
 * The engine's span batches (`SVCS`, docs/observability.md "The engine's span batches") → stored spans: exactly
 * the spans `decodeTraces` makes of the OTLP/JSON the OpenTelemetry SDK would send for the same invocations,
 * built from one line of space-separated fields each, with a shared resource per service and no event or error
 * lists for spans that have none. A malformed batch throws `OtlpShapeError` naming the line and field.
 *
 * The head: `{"resource":{attributes},"scope":"svc","strings":[…]}`. Each line after it:
 * `traceId spanId parentSpanId|- name# service# resourceService# invocationId|#n startµs endµs status
 * statusMessage#|- exceptionType#|- exceptionMessage#|- exceptionStack#|-` (`#` fields index `strings`).
 */
import type { SpanEvent, SpanStatus, StoredSpan } from './decode-traces.js';
import { obj, optString, OtlpShapeError, serviceOf, type Json } from './values.js';

const STATUS: readonly SpanStatus[] = ['unset', 'ok', 'error'];
const FIELDS = 14;
const NONE = '-';
const ZERO = 48; // '0'
const HASH = 35; // '#'
const NO_EVENTS = Object.freeze([]) as unknown as SpanEvent[];
const NO_ERRORS = Object.freeze([]) as unknown as StoredSpan['errors'];
/** Resources kept per service; past it the cache starts again (a service's spans then get an equal new one). */
const MAX_RESOURCES = 10_000;

export class EngineSpanDecoder {
  private resourceKey = '';
  private base: Record<string, Json> = {};
  private readonly resources = new Map<string, Record<string, Json>>();
  /** The fields of the line being decoded. */
  private readonly fields: string[] = new Array<string>(FIELDS).fill('');

  decode(text: string): StoredSpan[] {
    const headEnd = text.indexOf('\n');
    const headText = headEnd < 0 ? text : text.slice(0, headEnd);
    const head = obj(parse(headText), 'head');
    const strings = stringList(head.strings);
    const scope = optString(head.scope, 'head.scope');
    this.useResource(headText, obj(head.resource, 'head.resource'));
    const spans: StoredSpan[] = [];
    const fields = this.fields;
    let line = 1;
    for (let at = headEnd; at >= 0; line++) {
      const next = text.indexOf('\n', at + 1);
      const end = next < 0 ? text.length : next;
      // the line's space-separated fields into `fields` (what split(' ') gives, without an array per line)
      let start = at + 1;
      let n = 0;
      while (n < FIELDS) {
        const space = text.indexOf(' ', start);
        if (space < 0 || space > end) {
          fields[n++] = text.slice(start, end);
          start = end + 1;
          break;
        }
        fields[n++] = text.slice(start, space);
        start = space + 1;
      }
      if (n !== FIELDS || start <= end) {
        throw new OtlpShapeError(`line ${line}`, `${FIELDS} space-separated fields`);
      }
      spans.push(this.span(fields, strings, scope, line));
      at = next;
    }
    return spans;
  }

  private span(f: string[], strings: string[], scope: string | undefined, line: number): StoredSpan {
    const traceId = f[0]!;
    const spanId = f[1]!;
    const parent = f[2]!;
    if (!isLowerHex(traceId, 32)) throw bad(line, 0);
    if (!isLowerHex(spanId, 16)) throw bad(line, 1);
    if (parent !== NONE && !isLowerHex(parent, 16)) throw bad(line, 2);
    const startText = f[7]!;
    const endText = f[8]!;
    const startUs = micros(startText, line, 7);
    const endUs = micros(endText, line, 8);
    const status = f[9]!.length === 1 ? STATUS[f[9]!.charCodeAt(0) - ZERO] : undefined;
    if (status === undefined) throw bad(line, 9);
    const invocation = f[6]!.charCodeAt(0) === HASH ? indexed(f, 6, strings, line, 1) : f[6]!;
    const resource = this.resource(indexed(f, 5, strings, line));
    const end = `${endText}000`;
    const span: StoredSpan = {
      trace_id: traceId,
      span_id: spanId,
      name: indexed(f, 3, strings, line),
      service: serviceOf(resource),
      kind: 'server',
      start_time_unix_nano: `${startText}000`,
      end_time_unix_nano: end,
      start_ms: Math.floor(startUs / 1000),
      duration_ms: (endUs - startUs) / 1000,
      status,
      attributes: { 'svc.invocation_id': invocation, 'service.name': indexed(f, 4, strings, line) },
      events: NO_EVENTS,
      errors: NO_ERRORS,
      resource,
    };
    if (parent !== NONE) span.parent_span_id = parent;
    if (f[10] !== NONE) span.status_message = indexed(f, 10, strings, line);
    if (scope !== undefined) span.scope = scope;
    if (f[11] !== NONE) {
      const type = indexed(f, 11, strings, line);
      exception(span, type, optional(f, 12, strings, line), optional(f, 13, strings, line), end);
    }
    return span;
  }

  /** The batch's resource (every service's but `service.name`); the per-service cache restarts when it changes. */
  private useResource(headText: string, resource: Record<string, unknown>): void {
    const key = headText.slice(0, headText.indexOf(',"scope"'));
    if (key === this.resourceKey) return;
    for (const [k, v] of Object.entries(resource)) {
      if (!isAttributeValue(v)) throw new OtlpShapeError(`head.resource.${k}`, 'a string, number, boolean or array');
    }
    this.resourceKey = key;
    this.base = resource as Record<string, Json>;
    this.resources.clear();
  }

  private resource(service: string): Record<string, Json> {
    let resource = this.resources.get(service);
    if (resource === undefined) {
      if (this.resources.size >= MAX_RESOURCES) this.resources.clear();
      resource = { ...this.base, 'service.name': service };
      this.resources.set(service, resource);
    }
    return resource;
  }
}

/** The `exception` event and error of a failed invocation, as `decodeTraces` records them. */
function exception(span: StoredSpan, type: string, message: string | undefined, stack: string | undefined, at: string) {
  const attributes: Record<string, Json> = { 'exception.type': type };
  const error: StoredSpan['errors'][number] = { message: message ?? '', type };
  if (message !== undefined) attributes['exception.message'] = message;
  if (stack !== undefined) {
    attributes['exception.stacktrace'] = stack;
    error.stacktrace = stack;
  }
  span.events = [{ name: 'exception', time_unix_nano: at, attributes }];
  span.errors = [error];
}

const FIELD_NAMES = [
  'traceId',
  'spanId',
  'parentSpanId',
  'name',
  'service',
  'resourceService',
  'invocationId',
  'start',
  'end',
  'status',
  'statusMessage',
  'exceptionType',
  'exceptionMessage',
  'exceptionStack',
];
const EXPECTED = [
  '32 lowercase hex digits',
  '16 lowercase hex digits',
  '16 lowercase hex digits or -',
  '',
  '',
  '',
  '',
  'whole microseconds',
  'whole microseconds',
  '0, 1 or 2',
];

/** The error for field `i` of line `line` (`expected` defaults to the field's own). */
function bad(line: number, i: number, expected = EXPECTED[i] ?? ''): OtlpShapeError {
  return new OtlpShapeError(`line ${line} ${FIELD_NAMES[i]}`, expected);
}

/** Field `i` (after `skip` characters) as an index into `strings`: the string there. */
function indexed(f: string[], i: number, strings: string[], line: number, skip = 0): string {
  const text = skip === 0 ? f[i]! : f[i]!.slice(skip);
  const n = text === '' ? NaN : Number(text);
  const s = Number.isInteger(n) ? strings[n] : undefined;
  if (s === undefined) throw bad(line, i, `an index into strings (0-${strings.length - 1})`);
  return s;
}

function optional(f: string[], i: number, strings: string[], line: number): string | undefined {
  return f[i] === NONE ? undefined : indexed(f, i, strings, line);
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new OtlpShapeError('head', 'a JSON object');
  }
}

function stringList(v: unknown): string[] {
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) {
    throw new OtlpShapeError('head.strings', 'an array of strings');
  }
  return v;
}

/** `v` is `length` lowercase hex digits. */
function isLowerHex(v: string, length: number): boolean {
  if (v.length !== length) return false;
  for (let i = 0; i < length; i++) {
    const c = v.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/** Whole microseconds since the epoch, written plainly (no sign, exponent or leading zero). */
function micros(v: string, line: number, i: number): number {
  const n = Number(v);
  const first = v.charCodeAt(0);
  if (!Number.isSafeInteger(n) || first < ZERO || first > ZERO + 9 || (first === ZERO && v.length > 1)) {
    throw bad(line, i);
  }
  return n;
}

function isAttributeValue(v: unknown): boolean {
  const t = typeof v;
  if (t === 'string' || t === 'number' || t === 'boolean') return true;
  return Array.isArray(v) && v.every((x) => x === null || ['string', 'number', 'boolean'].includes(typeof x));
}
