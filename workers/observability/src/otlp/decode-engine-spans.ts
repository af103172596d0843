/**
 * The engine's span batches (`SVCS`, docs/observability.md "The engine's span batches") → stored spans: exactly
 * the spans `decodeTraces` makes of the OTLP/JSON the OpenTelemetry SDK would send for the same invocations,
 * built from one line of space-separated fields each, with a shared resource per service and no event or error
 * lists for spans that have none. A malformed batch throws `OtlpShapeError` naming the line and field.
 * `pack` checks a batch the same way without decoding it (nothing made per span); `decodeLine` decodes one of
 * its lines later, for a query.
 *
 * The head: `{"resource":{attributes},"scope":"svc","strings":[…]}`. Each line after it:
 * `traceId spanId parentSpanId|- name# service# resourceService# invocationId|#n startµs endµs status
 * statusMessage#|- exceptionType#|- exceptionMessage#|- exceptionStack#|-` (`#` fields index `strings`).
 */
import type { SpanEvent, SpanStatus, StoredSpan } from './records.js';
import { writtenLine } from './engine-line-pattern.js';
import { obj, optString, OtlpShapeError, serviceOf, type Json } from './values.js';

const STATUS: readonly SpanStatus[] = ['unset', 'ok', 'error'];
const FIELDS = 14;
const NONE = '-';
const ZERO = 48; // '0'
const HASH = 35; // '#'
const DASH = 45; // '-'
const NO_EVENTS = Object.freeze([]) as unknown as SpanEvent[];
const NO_ERRORS = Object.freeze([]) as unknown as StoredSpan['errors'];
/** Resources kept per service; past it the cache starts again (a service's spans then get an equal new one). */
const MAX_RESOURCES = 10_000;

/** A batch checked line by line and kept as its text (`EngineSpanDecoder.pack`). */
export interface PackedEngineBatch {
  readonly text: string;
  readonly head: EngineBatchHead;
  /** Where its first line starts (after the head). */
  readonly first: number;
  /** Its lines (spans). */
  readonly count: number;
}

/** What a batch's head gives every line: its strings table, scope and resources. */
export interface EngineBatchHead {
  readonly strings: string[];
  readonly scope: string | undefined;
  readonly resources: ServiceResources;
}

/** The resource of each service (the batch's resource with its `service.name`), made once per service. */
export class ServiceResources {
  private readonly byService = new Map<string, Record<string, Json>>();

  constructor(
    /** The head's text up to its scope: batches with the same key share these resources. */
    readonly key: string,
    private readonly base: Record<string, Json>,
  ) {}

  get(service: string): Record<string, Json> {
    let resource = this.byService.get(service);
    if (resource === undefined) {
      if (this.byService.size >= MAX_RESOURCES) this.byService.clear();
      resource = { ...this.base, 'service.name': service };
      this.byService.set(service, resource);
    }
    return resource;
  }
}

export class EngineSpanDecoder {
  private resources = new ServiceResources('', {});

  /** Every span of a batch. */
  decode(text: string): StoredSpan[] {
    const headEnd = text.indexOf('\n');
    const head = this.head(text, headEnd);
    const spans: StoredSpan[] = [];
    let line = 1;
    for (let at = headEnd; at >= 0; line++) {
      const next = text.indexOf('\n', at + 1);
      spans.push(spanOf(text, at + 1, next < 0 ? text.length : next, head, line));
      at = next;
    }
    return spans;
  }

  /**
   * A batch checked as `decode` checks it (the same refusals) but kept as its text: nothing is made per span,
   * its lines are decoded when a query asks for them (`decodeLine`).
   */
  pack(text: string): PackedEngineBatch {
    const headEnd = text.indexOf('\n');
    const head = this.head(text, headEnd);
    const written = writtenLine(head.strings.length);
    let count = 0;
    for (let at = headEnd; at >= 0; count++) {
      // a line as the engine writes it passes one native match; any other goes through checkLine, which accepts
      // the same lines and more, and names the field of a line it refuses
      written.lastIndex = at + 1;
      if (written.test(text)) {
        at = written.lastIndex < text.length ? written.lastIndex : -1;
        continue;
      }
      const next = text.indexOf('\n', at + 1);
      checkLine(text, at + 1, next < 0 ? text.length : next, head.strings, count + 1);
      at = next;
    }
    return { text, head, first: headEnd + 1, count };
  }

  private head(text: string, headEnd: number): EngineBatchHead {
    const headText = headEnd < 0 ? text : text.slice(0, headEnd);
    const head = obj(parse(headText), 'head');
    const strings = stringList(head.strings);
    const scope = optString(head.scope, 'head.scope');
    return { strings, scope, resources: this.useResource(headText, obj(head.resource, 'head.resource')) };
  }

  /** The batch's resource (every service's but `service.name`); new resources when it changes. */
  private useResource(headText: string, resource: Record<string, unknown>): ServiceResources {
    const key = headText.slice(0, headText.indexOf(',"scope"'));
    if (key === this.resources.key) return this.resources;
    for (const [k, v] of Object.entries(resource)) {
      if (!isAttributeValue(v)) throw new OtlpShapeError(`head.resource.${k}`, 'a string, number, boolean or array');
    }
    this.resources = new ServiceResources(key, resource as Record<string, Json>);
    return this.resources;
  }
}

/** The span of the line starting at `start` of a packed batch (`EngineSpanDecoder.pack`). */
export function decodeLine(text: string, start: number, head: EngineBatchHead): StoredSpan {
  const next = text.indexOf('\n', start);
  return spanOf(text, start, next < 0 ? text.length : next, head, 0);
}

/** Where each field of the line being read starts (`bounds[FIELDS]`: one past the line's end). */
const bounds = new Int32Array(FIELDS + 1);
/** The fields of the line being decoded. */
const fields: string[] = new Array<string>(FIELDS).fill('');

/** Finds the space-separated fields of line `[start, end)` (what split(' ') gives) and puts them in `bounds`. */
function split(text: string, start: number, end: number, line: number): void {
  let n = 0;
  while (n < FIELDS) {
    bounds[n++] = start;
    const space = text.indexOf(' ', start);
    if (space < 0 || space > end) {
      start = end + 1;
      break;
    }
    start = space + 1;
  }
  if (n !== FIELDS || start <= end) throw new OtlpShapeError(`line ${line}`, `${FIELDS} space-separated fields`);
  bounds[FIELDS] = end + 1;
}

function spanOf(text: string, start: number, end: number, head: EngineBatchHead, line: number): StoredSpan {
  split(text, start, end, line);
  for (let i = 0; i < FIELDS; i++) fields[i] = text.slice(bounds[i], bounds[i + 1]! - 1);
  return span(fields, head, line);
}

function span(f: string[], head: EngineBatchHead, line: number): StoredSpan {
  const { strings, scope } = head;
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
  const invocation = f[6]!.charCodeAt(0) === HASH ? indexed(f[6]!.slice(1), strings, line, 6) : f[6]!;
  const resource = head.resources.get(indexed(f[5]!, strings, line, 5));
  const end = `${endText}000`;
  const span: StoredSpan = {
    trace_id: traceId,
    span_id: spanId,
    name: indexed(f[3]!, strings, line, 3),
    service: serviceOf(resource),
    kind: 'server',
    start_time_unix_nano: `${startText}000`,
    end_time_unix_nano: end,
    start_ms: Math.floor(startUs / 1000),
    duration_ms: (endUs - startUs) / 1000,
    status,
    attributes: { 'svc.invocation_id': invocation, 'service.name': indexed(f[4]!, strings, line, 4) },
    events: NO_EVENTS,
    errors: NO_ERRORS,
    resource,
  };
  if (parent !== NONE) span.parent_span_id = parent;
  if (f[10] !== NONE) span.status_message = indexed(f[10]!, strings, line, 10);
  if (scope !== undefined) span.scope = scope;
  if (f[11] !== NONE) {
    const type = indexed(f[11]!, strings, line, 11);
    exception(span, type, optional(f, 12, strings, line), optional(f, 13, strings, line), end);
  }
  return span;
}

/**
 * Checks line `[start, end)` as `span` does, in the same order and with the same errors, reading its characters
 * in place; a field written other than the way the engine writes it (digits only) is checked as `span` checks it.
 */
function checkLine(text: string, start: number, end: number, strings: string[], line: number): void {
  split(text, start, end, line);
  const b = bounds;
  if (!isLowerHexAt(text, b[0]!, b[1]! - 1, 32)) throw bad(line, 0);
  if (!isLowerHexAt(text, b[1]!, b[2]! - 1, 16)) throw bad(line, 1);
  if (!isNoneAt(text, 2) && !isLowerHexAt(text, b[2]!, b[3]! - 1, 16)) throw bad(line, 2);
  checkMicros(text, 7, line);
  checkMicros(text, 8, line);
  const status = text.charCodeAt(b[9]!) - ZERO;
  if (b[10]! - b[9]! !== 2 || !(status >= 0 && status < STATUS.length)) throw bad(line, 9);
  if (text.charCodeAt(b[6]!) === HASH) checkIndex(text, 6, strings, line, 1);
  checkIndex(text, 5, strings, line);
  checkIndex(text, 3, strings, line);
  checkIndex(text, 4, strings, line);
  if (!isNoneAt(text, 10)) checkIndex(text, 10, strings, line);
  if (!isNoneAt(text, 11)) {
    checkIndex(text, 11, strings, line);
    if (!isNoneAt(text, 12)) checkIndex(text, 12, strings, line);
    if (!isNoneAt(text, 13)) checkIndex(text, 13, strings, line);
  }
}

/** Field `i` of the line in `bounds` is `-`. */
function isNoneAt(text: string, i: number): boolean {
  return bounds[i + 1]! - bounds[i]! === 2 && text.charCodeAt(bounds[i]!) === DASH;
}

/** Field `i` (after `skip` characters) is an index into `strings`. */
function checkIndex(text: string, i: number, strings: string[], line: number, skip = 0): void {
  const from = bounds[i]! + skip;
  const to = bounds[i + 1]! - 1;
  const n = digitsAt(text, from, to);
  if (n < 0 || n >= strings.length) indexed(text.slice(from, to), strings, line, i);
}

/** Field `i` is whole microseconds. */
function checkMicros(text: string, i: number, line: number): void {
  const from = bounds[i]!;
  const to = bounds[i + 1]! - 1;
  const n = digitsAt(text, from, to);
  if (n < 0 || n > Number.MAX_SAFE_INTEGER || (text.charCodeAt(from) === ZERO && to - from > 1)) {
    micros(text.slice(from, to), line, i);
  }
}

/** The number `[from, to)` spells in at most 16 decimal digits; -1 for anything else. */
function digitsAt(text: string, from: number, to: number): number {
  if (to <= from || to - from > 16) return -1;
  let n = 0;
  for (let p = from; p < to; p++) {
    const d = text.charCodeAt(p) - ZERO;
    if (!(d >= 0 && d <= 9)) return -1;
    n = n * 10 + d;
  }
  return n;
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

/** `text` (field `i`) as an index into `strings`: the string there. */
function indexed(text: string, strings: string[], line: number, i: number): string {
  const n = text === '' ? NaN : Number(text);
  const s = Number.isInteger(n) ? strings[n] : undefined;
  if (s === undefined) throw bad(line, i, `an index into strings (0-${strings.length - 1})`);
  return s;
}

function optional(f: string[], i: number, strings: string[], line: number): string | undefined {
  return f[i] === NONE ? undefined : indexed(f[i]!, strings, line, i);
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
  return isLowerHexAt(v, 0, v.length, length);
}

/** `text[from, to)` is `length` lowercase hex digits. */
function isLowerHexAt(text: string, from: number, to: number, length: number): boolean {
  if (to - from !== length) return false;
  for (let p = from; p < to; p++) {
    const c = text.charCodeAt(p);
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
