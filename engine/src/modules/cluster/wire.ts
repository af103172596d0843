/**
 * What engines of one cluster say to each other over NATS, and on which subjects (docs/cluster.md). Every
 * message is JSON; what arrives is checked here before anything else reads it (a malformed message is dropped
 * and logged by the caller, never trusted).
 *
 *   svc.<cluster>.announce            every engine's registry and workers, each heartbeat and on every change
 *   svc.<cluster>.call.<engine id>    request/reply: run one call on that engine, answer its outcome
 *   svc.<cluster>.cancel.<engine id>  the caller of a call in flight on that engine is gone: stop it
 */
import type { ErrorBody } from '@svc/sdk';

export const WIRE_VERSION = 1;

export interface Subjects {
  announce: string;
  call(engineId: string): string;
  cancel(engineId: string): string;
}

export function subjectsOf(cluster: string): Subjects {
  const base = `svc.${cluster}`;
  return {
    announce: `${base}.announce`,
    call: (engineId) => `${base}.call.${engineId}`,
    cancel: (engineId) => `${base}.cancel.${engineId}`,
  };
}

export interface AnnouncedFunction {
  id: string;
  /** Worker (socket) replicas on the announcing engine. */
  replicas: number;
  worker_name: string;
  description?: string;
  metadata?: unknown;
}

export interface AnnouncedWorker {
  id: string;
  name: string;
  description?: string;
  runtime?: string;
  version?: string;
  os?: string;
  pid?: number;
  isolation?: string | null;
  ip_address?: string;
  connected_at_ms: number;
  function_count: number;
  active_invocations: number;
}

export interface AnnouncedTrigger {
  id: string;
  trigger_type: string;
  function_id: string;
  config: unknown;
  metadata?: unknown;
}

export interface Announcement {
  v: number;
  engine: string;
  /** The engine's WebSocket address as it knows it (workers may fail over to it). */
  url: string;
  /** `true` on a clean shutdown: drop this engine now instead of after the heartbeat timeout. */
  leaving?: boolean;
  functions: AnnouncedFunction[];
  workers: AnnouncedWorker[];
  /** Trigger types provided by workers of the announcing engine. */
  trigger_types: string[];
  /** Trigger bindings registered by workers of the announcing engine. */
  triggers: AnnouncedTrigger[];
}

export interface CallMessage {
  /** The calling engine's id for this call (cancel messages name it). */
  id: string;
  from: string;
  function_id: string;
  data: unknown;
  /** The calling worker (`_caller_worker_id` on the executor's side), if a worker made the call. */
  caller?: string;
  /** The caller's own invocation id, for logs and traces. */
  invocation_id?: string;
  /** Engine-side deadline in ms; 0: none. */
  timeout_ms: number;
  metadata?: unknown;
  traceparent?: string;
  baggage?: string;
  /** Fire and forget: nobody waits for an answer. */
  void?: boolean;
}

export interface CallReply {
  result?: unknown;
  error?: ErrorBody;
}

export interface CancelMessage {
  id: string;
  from: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encode(message: Announcement | CallMessage | CallReply | CancelMessage): Uint8Array {
  return encoder.encode(JSON.stringify(message));
}

type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

function parseObject(bytes: Uint8Array): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(bytes));
  } catch {
    return 'not JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  return value as Record<string, unknown>;
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

function validFunction(f: unknown): boolean {
  const o = f as Partial<AnnouncedFunction> | null;
  return (
    typeof o === 'object' && o !== null && isString(o.id) && isCount(o.replicas) && typeof o.worker_name === 'string'
  );
}

function validWorker(w: unknown): boolean {
  const o = w as Partial<AnnouncedWorker> | null;
  return typeof o === 'object' && o !== null && isString(o.id) && typeof o.name === 'string';
}

function validTrigger(t: unknown): boolean {
  const o = t as Partial<AnnouncedTrigger> | null;
  return typeof o === 'object' && o !== null && isString(o.id) && isString(o.trigger_type) && isString(o.function_id);
}

export function parseAnnouncement(bytes: Uint8Array): Parsed<Announcement> {
  const o = parseObject(bytes);
  if (typeof o === 'string') return { ok: false, reason: o };
  if (o.v !== WIRE_VERSION) return { ok: false, reason: `wire version ${String(o.v)}, expected ${WIRE_VERSION}` };
  if (!isString(o.engine) || typeof o.url !== 'string') return { ok: false, reason: 'engine and url are required' };
  const lists: [string, (x: unknown) => boolean][] = [
    ['functions', validFunction],
    ['workers', validWorker],
    ['triggers', validTrigger],
    ['trigger_types', isString],
  ];
  for (const [key, valid] of lists) {
    const list = o[key];
    if (!Array.isArray(list) || !list.every(valid)) return { ok: false, reason: `${key}: malformed list` };
  }
  return { ok: true, value: o as unknown as Announcement };
}

export function parseCall(bytes: Uint8Array): Parsed<CallMessage> {
  const o = parseObject(bytes);
  if (typeof o === 'string') return { ok: false, reason: o };
  if (!isString(o.id) || !isString(o.from) || !isString(o.function_id) || !isCount(o.timeout_ms)) {
    return { ok: false, reason: 'id, from, function_id and timeout_ms are required' };
  }
  if (o.caller !== undefined && typeof o.caller !== 'string') return { ok: false, reason: 'caller: not a string' };
  return { ok: true, value: o as unknown as CallMessage };
}

export function parseReply(bytes: Uint8Array): Parsed<CallReply> {
  const o = parseObject(bytes);
  if (typeof o === 'string') return { ok: false, reason: o };
  const error = o.error as Partial<ErrorBody> | undefined;
  if (error !== undefined && (typeof error !== 'object' || error === null || typeof error.code !== 'string')) {
    return { ok: false, reason: 'error: expected {code, message}' };
  }
  return { ok: true, value: o };
}

export function parseCancel(bytes: Uint8Array): Parsed<CancelMessage> {
  const o = parseObject(bytes);
  if (typeof o === 'string') return { ok: false, reason: o };
  if (!isString(o.id) || !isString(o.from)) return { ok: false, reason: 'id and from are required' };
  return { ok: true, value: o as unknown as CancelMessage };
}
