/**
 * Calls other engines send to this one: each runs through this engine's own routing as a call of the cluster
 * module's in-process client (so the executor's deadline, cancellation and replica choice are the engine's
 * usual ones), and its outcome is the reply. `_caller_worker_id` names the worker on the calling engine. A
 * cancel message (the caller went away) aborts the call here, which relays `cancelinvocation` to the executor.
 */
import type { Msg, NatsConnection, Subscription } from 'nats';
import type { Logger } from 'pino';
import type { ErrorBody, SvcClient } from '@svc/sdk';
import { resultTooLarge } from './errors.js';
import { encode, parseCall, parseCancel, type CallMessage, type Subjects } from './wire.js';
import { textOf } from '@svc/sdk/core';

const MAX_TIMER_MS = 2_147_483_647;

export class IncomingCalls {
  private readonly running = new Map<string, AbortController>();
  private readonly subscriptions: Subscription[] = [];

  constructor(
    private readonly nc: NatsConnection,
    private readonly client: SvcClient,
    private readonly logger: Logger,
  ) {}

  start(subjects: Subjects, engineId: string): void {
    this.subscriptions.push(
      this.nc.subscribe(subjects.call(engineId), { callback: (err, msg) => err === null && this.onCall(msg) }),
      this.nc.subscribe(subjects.cancel(engineId), { callback: (err, msg) => err === null && this.onCancel(msg) }),
    );
  }

  close(): void {
    for (const sub of this.subscriptions) sub.unsubscribe();
    for (const controller of this.running.values()) controller.abort();
    this.running.clear();
  }

  private onCall(msg: Msg): void {
    const parsed = parseCall(msg.data);
    if (!parsed.ok) {
      this.logger.warn({ reason: parsed.reason }, 'dropped a malformed cluster call');
      if (msg.reply) msg.respond(encode({ error: { code: 'invalid_frame', message: parsed.reason } }));
      return;
    }
    const call = parsed.value;
    const controller = new AbortController();
    const key = `${call.from}/${call.id}`;
    if (call.void !== true) this.running.set(key, controller);
    this.client
      .trigger({
        function_id: call.function_id,
        payload: withCaller(call),
        timeoutMs: call.timeout_ms > 0 ? call.timeout_ms : MAX_TIMER_MS,
        ...(call.void === true ? { action: { type: 'void' } as const } : { signal: controller.signal }),
        // the executor sees the caller's own invocation id (the engine keeps it when it is free there)
        ...(call.invocation_id !== undefined ? { invocationId: call.invocation_id } : {}),
        ...(call.metadata !== undefined ? { metadata: call.metadata } : {}),
        ...(call.traceparent !== undefined ? { traceparent: call.traceparent } : {}),
        ...(call.baggage !== undefined ? { baggage: call.baggage } : {}),
      })
      .then(
        (result) => this.answer(msg, key, call.function_id, { result }),
        (err: unknown) => this.answer(msg, key, call.function_id, { error: errorOf(err) }),
      );
  }

  private answer(msg: Msg, key: string, functionId: string, reply: { result?: unknown; error?: ErrorBody }): void {
    this.running.delete(key);
    if (!msg.reply) return;
    let data = encode(reply);
    const max = this.nc.info?.max_payload;
    // Too large for NATS: the publish would fail and the caller wait for its deadline. Say so instead.
    if (max !== undefined && data.length > max) data = encode({ error: resultTooLarge(functionId, data.length, max) });
    try {
      msg.respond(data);
    } catch (err) {
      this.logger.debug({ err }, 'could not answer a cluster call (NATS connection closed)');
    }
  }

  private onCancel(msg: Msg): void {
    const parsed = parseCancel(msg.data);
    if (!parsed.ok) return;
    const key = `${parsed.value.from}/${parsed.value.id}`;
    this.running.get(key)?.abort();
    this.running.delete(key);
  }
}

/**
 * As docs/protocol.md "3.3 A synchronous call" says: an object payload from a worker carries `_caller_worker_id` (the
 * worker on its engine).
 */
function withCaller(call: CallMessage): unknown {
  const data = call.data;
  if (call.caller === undefined || typeof data !== 'object' || data === null || Array.isArray(data)) return data;
  return { ...(data as Record<string, unknown>), _caller_worker_id: call.caller };
}

function errorOf(err: unknown): ErrorBody {
  const e = err as { code?: unknown; detail?: unknown; message?: unknown; stacktrace?: unknown } | null;
  if (e !== null && typeof e === 'object' && typeof e.code === 'string') {
    const body: ErrorBody = { code: e.code, message: textOf(e.detail ?? e.message ?? '') };
    if (typeof e.stacktrace === 'string') body.stacktrace = e.stacktrace;
    return body;
  }
  return { code: 'invocation_failed', message: err instanceof Error ? err.message : String(err) };
}
