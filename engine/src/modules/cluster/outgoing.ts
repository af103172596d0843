/**
 * Calls this engine sends to another engine of the cluster: NATS request/reply on the executing engine's call
 * subject, the replies coming back on one subscription of this engine's own inbox (`<inbox>.<call id>`) and matched
 * to the calls in flight by id: no subscription, stack trace or error object per call, as `nc.request` makes. Each
 * call in flight is indexed by engine, so an engine that leaves fails its calls at once with
 * `cluster_engine_lost` (never a hang), and by caller, so a caller that disconnects cancels its remote calls.
 * A request nobody listens to (the engine died, not yet detected: NATS answers "no responders") was never
 * delivered: it is retried elsewhere.
 */
import { newUuid } from '@svc/sdk/core';
import { createInbox, type Msg, type NatsConnection, type Subscription } from 'nats';
import type { Logger } from 'pino';
import type { CallRequest, DispatchVerdict } from '../module.js';
import { engineLost, payloadTooLarge, unavailable } from './errors.js';
import { encode, parseReply, type CallMessage, type Subjects } from './wire.js';

/** Slack over the call's own deadline before the NATS request gives up (the executor answers timeouts itself). */
const REQUEST_SLACK_MS = 2000;
const MAX_TIMER_MS = 2_147_483_647;
/** The status NATS answers a request with when nothing subscribes to its subject. */
const NO_RESPONDERS = 503;

interface Pending {
  readonly id: string;
  readonly engineId: string;
  readonly functionId: string;
  readonly callerId: string | undefined;
  readonly callerInvocationId: string | undefined;
  resolve(verdict: DispatchVerdict): void;
}

/** What to do when the chosen engine turned out not to be listening: try another, or answer. */
export type Reroute = (call: CallRequest, excluded: Set<string>) => DispatchVerdict | Promise<DispatchVerdict>;

export class RemoteCalls {
  private readonly byEngine = new Map<string, Map<string, Pending>>();
  private readonly byCaller = new Map<string, Set<Pending>>();
  /** The reply handler of each call in flight, by call id. */
  private readonly replies = new Map<string, (reply: Msg) => void>();
  private readonly inbox = createInbox();
  private readonly replySubscription: Subscription;

  constructor(
    private readonly nc: NatsConnection,
    private readonly subjects: Subjects,
    private readonly engineId: string,
    private readonly logger: Logger,
  ) {
    const from = this.inbox.length + 1;
    this.replySubscription = nc.subscribe(`${this.inbox}.*`, {
      callback: (err, msg) => {
        if (err === null) this.replies.get(msg.subject.slice(from))?.(msg);
      },
    });
  }

  /** Stops taking replies (the connection is closing). */
  close(): void {
    this.replySubscription.unsubscribe();
  }

  get inFlight(): number {
    let n = 0;
    for (const calls of this.byEngine.values()) n += calls.size;
    return n;
  }

  /** Sends `call` to `engineId`; resolves with its outcome. */
  invoke(call: CallRequest, engineId: string, reroute: Reroute, excluded: Set<string>): Promise<DispatchVerdict> {
    const message = this.message(call);
    const data = encode(message);
    const max = this.nc.info?.max_payload;
    if (max !== undefined && data.length > max) {
      const error = payloadTooLarge(call.functionId, data.length, max);
      if (message.void === true)
        this.logger.warn({ function_id: call.functionId }, `void call dropped: ${error.message}`);
      return Promise.resolve({ error });
    }
    if (message.void === true) {
      this.nc.publish(this.subjects.call(engineId), data);
      return Promise.resolve({ result: null });
    }
    return new Promise<DispatchVerdict>((resolve) => {
      const settle = (): boolean => {
        if (!this.forget(pending)) return false; // already answered (engine lost, then a late reply)
        this.replies.delete(pending.id);
        clearTimeout(timer);
        return true;
      };
      const pending: Pending = {
        id: message.id,
        engineId,
        functionId: call.functionId,
        callerId: call.caller?.id,
        callerInvocationId: call.callerInvocationId,
        resolve: (verdict) => {
          if (settle()) resolve(verdict);
        },
      };
      this.track(pending);
      const timeout = call.timeoutMs > 0 ? Math.min(call.timeoutMs + REQUEST_SLACK_MS, MAX_TIMER_MS) : MAX_TIMER_MS;
      const timer = setTimeout(() => {
        const message = `no answer from engine ${engineId} within ${call.timeoutMs} ms`;
        pending.resolve({ error: { code: 'invocation_timeout', message } });
      }, timeout);
      this.replies.set(message.id, (reply) => {
        if (reply.data.length === 0 && reply.headers?.code === NO_RESPONDERS) {
          if (!settle()) return;
          excluded.add(engineId);
          resolve(reroute(call, excluded));
          return;
        }
        const parsed = parseReply(reply.data);
        if (parsed.ok) pending.resolve(parsed.value);
        else pending.resolve({ error: unavailable(call.functionId, `malformed reply: ${parsed.reason}`) });
      });
      try {
        this.nc.publish(this.subjects.call(engineId), data, { reply: `${this.inbox}.${message.id}` });
      } catch (err) {
        pending.resolve({ error: unavailable(call.functionId, err instanceof Error ? err.message : String(err)) });
      }
    });
  }

  /** Fails every call in flight on `engineId` (it left the cluster). */
  engineGone(engineId: string, why: string): void {
    const calls = this.byEngine.get(engineId);
    if (calls === undefined) return;
    for (const p of [...calls.values()]) p.resolve({ error: engineLost(p.functionId, engineId, why) });
  }

  /** Fails every call in flight (this engine lost NATS). */
  failAll(why: string): void {
    for (const calls of [...this.byEngine.values()]) {
      for (const p of [...calls.values()]) p.resolve({ error: unavailable(p.functionId, why) });
    }
  }

  /** The caller disconnected: its remote calls are cancelled on their engines. */
  callerGone(callerId: string): void {
    const calls = this.byCaller.get(callerId);
    if (calls === undefined) return;
    for (const p of [...calls]) this.cancel(p);
  }

  /** The caller cancelled one call (`cancelinvocation`): it is cancelled on its engine. */
  cancelledByCaller(callerId: string, callerInvocationId: string): void {
    const calls = this.byCaller.get(callerId);
    if (calls === undefined) return;
    for (const p of [...calls]) if (p.callerInvocationId === callerInvocationId) this.cancel(p);
  }

  private cancel(p: Pending): void {
    this.nc.publish(this.subjects.cancel(p.engineId), encode({ id: p.id, from: this.engineId }));
    // an outcome, never `undefined` (that would route the call again); the caller already gave up on it
    p.resolve({ error: { code: 'cancelled', message: `${p.functionId} was cancelled by its caller` } });
  }

  private message(call: CallRequest): CallMessage {
    const message: CallMessage = {
      id: newUuid(),
      from: this.engineId,
      function_id: call.functionId,
      data: call.data,
      timeout_ms: call.timeoutMs,
    };
    if (call.caller !== undefined && call.injectCallerId) message.caller = call.caller.id;
    if (call.callerInvocationId !== undefined) message.invocation_id = call.callerInvocationId;
    if (call.metadata !== undefined) message.metadata = call.metadata;
    if (call.traceparent !== undefined) message.traceparent = call.traceparent;
    if (call.baggage !== undefined) message.baggage = call.baggage;
    if (call.callerInvocationId === undefined && call.onDone === undefined) message.void = true;
    return message;
  }

  private track(p: Pending): void {
    let calls = this.byEngine.get(p.engineId);
    if (calls === undefined) this.byEngine.set(p.engineId, (calls = new Map<string, Pending>()));
    calls.set(p.id, p);
    if (p.callerId === undefined) return;
    let mine = this.byCaller.get(p.callerId);
    if (mine === undefined) this.byCaller.set(p.callerId, (mine = new Set()));
    mine.add(p);
  }

  /** Removes `p` from the indexes; false when it was already gone. */
  private forget(p: Pending): boolean {
    const calls = this.byEngine.get(p.engineId);
    if (calls === undefined || !calls.delete(p.id)) return false;
    if (calls.size === 0) this.byEngine.delete(p.engineId);
    if (p.callerId !== undefined) {
      const mine = this.byCaller.get(p.callerId);
      mine?.delete(p);
      if (mine?.size === 0) this.byCaller.delete(p.callerId);
    }
    this.logger.trace({ id: p.id }, 'remote call settled');
    return true;
  }
}
