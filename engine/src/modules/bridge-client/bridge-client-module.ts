/**
 * `modules::bridge_client::BridgeClientModule`: connects this engine to a remote engine as one worker there
 * (named `service_id`), and links named functions across:
 * - `expose[]`: a local function becomes callable on the remote engine as `remote_function` (default: same name);
 * - `forward[]`: a call of `local_function` here runs `remote_function` there, with a deadline of `timeout_ms`;
 * - `bridge.invoke {function_id, data, timeout_ms?}` and `bridge.invoke_async` (no answer) call any remote function.
 *
 * Calls keep their trace context (same trace id, a new span id) and metadata, and count bridge crossings in their
 * baggage (hops.ts). While the remote engine is unreachable, forwarded calls fail at once with `bridge_unavailable`
 * and are never queued for later; the connection is retried every ≤ 2 s, and exposed functions are registered again
 * on every reconnect, so calls resume within seconds of the remote coming back.
 */
import type { BridgeClientConfig, DeepReadonly } from '@svc/config';
import { childTraceparent, registerWorker, TriggerAction, type HandlerContext, type SvcClient } from '@svc/sdk';
import type { Logger } from 'pino';
import type { EngineModule, ModuleContext } from '../module.js';
import { hopLimitError, remoteCallError, unavailableError } from './bridge-errors.js';
import { MAX_BRIDGE_HOPS, readHops, withHops } from './hops.js';
import { readInvokeInput } from './invoke-input.js';

export const BRIDGE_CLIENT_CLASS = 'modules::bridge_client::BridgeClientModule';
/** Reconnection to the remote engine: quick first retries, never more than 2 s apart. */
const RECONNECTION = { initialDelayMs: 100, maxDelayMs: 2000, backoffMultiplier: 2, jitterFactor: 0.2, maxRetries: -1 };
/** Deadline of a local call made for the remote engine; the remote caller's cancel aborts it earlier. */
const LOCAL_CALL_TIMEOUT_MS = 300_000;

/** Engines whose `bridge.invoke` functions are claimed: with several bridge clients, the first one provides them. */
const invokeOwners = new WeakSet<object>();

export class BridgeClientModule implements EngineModule {
  readonly name = BRIDGE_CLIENT_CLASS;
  private local: SvcClient | undefined;
  private remote: SvcClient | undefined;
  private logger: Logger | undefined;
  private connected = false;
  private closed = false;

  constructor(private readonly config: DeepReadonly<BridgeClientConfig>) {}

  /** True while the remote engine is connected and has our registrations. */
  get isConnected(): boolean {
    return this.connected;
  }

  async start(ctx: ModuleContext): Promise<void> {
    const label = this.config.service_name ?? this.config.service_id;
    const logger = (this.logger = ctx.logger.child({ bridge: label, remote: this.config.url }));
    this.local = await ctx.connect(`bridge:${label}`);
    this.remote = registerWorker(this.config.url, {
      workerName: this.config.service_id,
      workerDescription: `bridge from ${label}`,
      logger,
      reconnectionConfig: RECONNECTION,
      onConnectionStateChange: (state) => this.onConnectionState(state.connected),
    });
    for (const e of this.config.expose) this.expose(e.local_function, e.remote_function ?? e.local_function);
    for (const f of this.config.forward) this.forward(f.local_function, f.remote_function, f.timeout_ms);
    if (!invokeOwners.has(ctx.engine)) {
      invokeOwners.add(ctx.engine);
      this.registerInvokeFunctions();
    }
    logger.info(
      { expose: this.config.expose.length, forward: this.config.forward.length },
      'bridge client started; connecting to the remote engine',
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.connected = false;
    await Promise.all(
      [this.remote?.shutdown(), this.local?.shutdown()].map((p) => p?.catch(() => undefined) ?? Promise.resolve()),
    );
  }

  private onConnectionState(connected: boolean): void {
    if (connected === this.connected || this.closed) return;
    this.connected = connected;
    if (connected) this.logger?.info('bridge connected to the remote engine');
    else
      this.logger?.warn('bridge lost the remote engine; forwarded calls fail with bridge_unavailable until it is back');
  }

  /** Registers `remoteId` on the remote engine; a call there runs `localId` here. */
  private expose(localId: string, remoteId: string): void {
    this.requireRemote().registerFunction(
      remoteId,
      (payload: unknown, ctx: HandlerContext) => {
        const hops = readHops(ctx.baggage) + 1;
        if (hops > MAX_BRIDGE_HOPS) throw hopLimitError(remoteId);
        return this.requireLocal().trigger({
          function_id: localId,
          payload,
          metadata: ctx.metadata,
          traceparent: childTraceparent(ctx.traceparent),
          baggage: withHops(ctx.baggage, hops),
          timeoutMs: LOCAL_CALL_TIMEOUT_MS,
          signal: ctx.signal,
        });
      },
      { description: `runs '${localId}' on the engine bridged as '${this.config.service_id}'` },
    );
  }

  /** Registers `localId` here; a call of it runs `remoteId` on the remote engine. */
  private forward(localId: string, remoteId: string, timeoutMs: number): void {
    this.requireLocal().registerFunction(
      localId,
      (payload: unknown, ctx: HandlerContext) => this.callRemote(remoteId, payload, ctx, timeoutMs),
      { description: `forwarded to '${remoteId}' on ${this.config.url} (timeout ${timeoutMs} ms)` },
    );
  }

  private async callRemote(remoteId: string, payload: unknown, ctx: HandlerContext, timeoutMs: number) {
    const hops = readHops(ctx.baggage) + 1;
    if (hops > MAX_BRIDGE_HOPS) throw hopLimitError(remoteId);
    // Never queue a call for a remote that is not there: the caller learns now, and nothing runs later.
    if (!this.connected) throw unavailableError(this.config.url, remoteId);
    try {
      return await this.requireRemote().trigger({
        function_id: remoteId,
        payload,
        metadata: ctx.metadata,
        traceparent: childTraceparent(ctx.traceparent),
        baggage: withHops(ctx.baggage, hops),
        timeoutMs,
        signal: ctx.signal,
      });
    } catch (err) {
      throw remoteCallError(err, this.config.url, remoteId, timeoutMs);
    }
  }

  private registerInvokeFunctions(): void {
    const local = this.requireLocal();
    local.registerFunction(
      'bridge.invoke',
      (input: unknown, ctx: HandlerContext) => {
        const call = readInvokeInput(input, 'bridge.invoke');
        return this.callRemote(call.function_id, call.data, ctx, call.timeout_ms ?? 5000);
      },
      { description: 'Calls a function of the bridged engine: {function_id, data, timeout_ms = 5000}' },
    );
    local.registerFunction(
      'bridge.invoke_async',
      (input: unknown, ctx: HandlerContext) => {
        const call = readInvokeInput(input, 'bridge.invoke_async');
        const hops = readHops(ctx.baggage) + 1;
        if (hops > MAX_BRIDGE_HOPS) throw hopLimitError(call.function_id);
        if (!this.connected) throw unavailableError(this.config.url, call.function_id);
        void this.requireRemote().trigger({
          function_id: call.function_id,
          payload: call.data,
          action: TriggerAction.Void(),
          traceparent: childTraceparent(ctx.traceparent),
          baggage: withHops(ctx.baggage, hops),
        });
        return undefined;
      },
      { description: 'Sends a call to the bridged engine without waiting for its result: {function_id, data}' },
    );
  }

  private requireLocal(): SvcClient {
    if (this.local === undefined) throw new Error('bridge client used before start()');
    return this.local;
  }

  private requireRemote(): SvcClient {
    if (this.remote === undefined) throw new Error('bridge client used before start()');
    return this.remote;
  }
}
